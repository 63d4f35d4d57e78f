// TrendLens on Even Realities G2, as an Even Hub plugin: the HUD page's logic (one session's
// captions over its watch-only WebSocket) drawn in one G2 text container instead of a web page.
//
// Opened as index.html#server=<TrendLens base URL>&session=<id>&token=<session token>: the token
// stays after '#', so no server's access log holds it, and goes to the socket as a subprotocol.
import { waitForEvenAppBridge, StartUpPageCreateResult } from "@evenrealities/even_hub_sdk";

const WIDTH = 576, HEIGHT = 288;           // the G2 canvas, per eye
const CONTAINER = { containerID: 1, containerName: "caption" };
const MAX_BYTES = 999;                     // a text container's limit (the simulator enforces it)

const params = new URLSearchParams(location.hash.slice(1));
const server = params.get("server") || location.origin;
const session = params.get("session") || "";
const token = params.get("token") || "";
const statusEl = document.getElementById("status");
let hideTimer = null, backoff = 500;

function fitBytes(text) {
  // the lines are already fitted by the even-g2 profile; this only guards the container's byte cap
  const bytes = new TextEncoder().encode(text);
  return bytes.length <= MAX_BYTES ? text : new TextDecoder().decode(bytes.slice(0, MAX_BYTES)).replace(/\uFFFD$/, "");
}

async function main() {
  const bridge = await waitForEvenAppBridge();
  const created = await bridge.createStartUpPageContainer({
    containerTotalNum: 1,
    textObject: [{ ...CONTAINER, xPosition: 0, yPosition: 0, width: WIDTH, height: HEIGHT,
                   content: "TrendLens", isEventCapture: 1 }],
  });
  console.log("trendlens: page " + (created === StartUpPageCreateResult.success ? "created" : "failed " + created));

  async function showText(text, what) {
    const ok = await bridge.textContainerUpgrade({ ...CONTAINER, content: fitBytes(text) });
    console.log("trendlens: " + what + " " + JSON.stringify({ ok, text }));
  }

  function connect() {
    const url = server.replace(/^http/, "ws") + "/hud/" + encodeURIComponent(session) + "/ws";
    const ws = new WebSocket(url, ["trendlens.hud", "token." + token]);
    ws.onopen = () => { statusEl.textContent = "TrendLens: live"; backoff = 500; console.log("trendlens: live"); };
    ws.onmessage = async (ev) => {
      let msg; try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === "caption") {
        clearTimeout(hideTimer);
        await showText(msg.lines.join("\n"), "caption");
        const left = msg.ttl_ms - (Date.now() - msg.created_at * 1000);
        hideTimer = setTimeout(() => showText("", "cleared"), Math.max(1000, Math.min(left, msg.ttl_ms)));
      } else if (msg.type === "clear") {
        await showText("", "cleared");
      }
    };
    ws.onclose = () => {
      statusEl.textContent = "TrendLens: reconnecting…";
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 8000);
    };
  }
  connect();
}

main().catch((err) => console.error("trendlens: " + err));
