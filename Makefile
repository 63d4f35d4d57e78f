# Two commands do everything: `make run` and `make test`. Each installs what it needs first.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test demo lint bench eval clean glasses-system even-hub

# torch goes in first, pinned to the CPU build, so the sentence-transformers
# requirement does not pull a multi-GB CUDA build; then the project itself. The checkout goes on
# the environment's path (a .pth file) so scripts import `harness`, which the wheel leaves out.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "torch==2.13.0"
	$(PY) -m pip install -q -e ".[dev,glasses]"
	$(PY) -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()["purelib"], "trendlens-harness.pth").write_text(str(pathlib.Path.cwd()) + "\n")'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/trendlens serve

# What the glasses tests need from Debian: Noto CJK for captions drawn as bitmaps (found at run time),
# and Xvfb and WebKitGTK for Even's simulator window. Installed here where apt-get can (root); else
# the tests say what is missing (skipped, failed under CI).
glasses-system:
	@need=""; \
	  { fc-list 2>/dev/null | grep -q "Noto Sans CJK" || ls /usr/share/fonts/opentype/noto/NotoSansCJK* >/dev/null 2>&1; } \
	    || need="$$need fonts-noto-cjk"; \
	  command -v xvfb-run >/dev/null 2>&1 || need="$$need xvfb xauth"; \
	  ldconfig -p 2>/dev/null | grep -q libwebkit2gtk-4.1 || need="$$need libwebkit2gtk-4.1-0 libgtk-3-0"; \
	  if [ -n "$$need" ]; then \
	    if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null \
	        || echo "warning: could not install$$need"; \
	    else echo "warning: the glasses tests need Debian's$$need (apt-get install$$need)"; fi; \
	  fi

# The Even Hub plugin's SDK and Even's simulator (a linux-x64 binary) for the G2 tests, at the exact
# versions package.json pins (none of them has dependencies of its own, so no lockfile: npm's records
# only the platform it ran on); the simulator's window also needs Xvfb and WebKitGTK (glasses-system).
EVEN_HUB := deploy/even-hub
even-hub: $(EVEN_HUB)/node_modules/.installed

$(EVEN_HUB)/node_modules/.installed: $(EVEN_HUB)/package.json
	@if command -v npm >/dev/null 2>&1; then \
	  cd $(EVEN_HUB) && npm install --package-lock=false --no-audit --no-fund --loglevel=error \
	    && touch node_modules/.installed; \
	else echo "warning: no npm; the Even Hub tests need it (apt-get install nodejs npm)"; fi

test: $(STAMP) glasses-system even-hub
	$(PY) -m pytest -q -rs -p no:cacheprovider; rc=$$?; [ $$rc -eq 5 ] && echo "no tests collected" && rc=0; exit $$rc

demo: $(STAMP)
	$(VENV)/bin/trendlens demo

lint: $(STAMP)
	$(VENV)/bin/ruff check agent harness tests scripts
	$(VENV)/bin/mypy

# the cheap tables of BENCHMARKS.md, rewritten in place (scripts/tools/bench_tables.py), then the encode
# limit and the 100-session load test read against it; bench/rank_latency, bench/index_growth and
# bench/instances are run by hand, their commands beside their tables
bench: $(STAMP)
	$(PY) scripts/tools/bench_tables.py
	$(PY) scripts/bench/encode_limit.py --seconds 3 --service 1 2
	$(PY) scripts/bench/concurrent_sessions.py --devsets --sessions 100 --duration 30

eval: $(STAMP)
	$(PY) scripts/eval/relevance.py

clean:
	rm -rf $(VENV) data .pytest_cache .hypothesis
