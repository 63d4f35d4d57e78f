"""`trendlens keys create|list|revoke`: API keys in the store the service reads.

Pointed at a shared database (`TRENDLENS_DATABASE_URL`), a key made or revoked here holds on
every instance within seconds, without a restart (see `KeyRing`).
"""

from __future__ import annotations

import argparse

from ..settings import get_settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("keys", help="create, list or revoke API keys in the store")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="make a key; it is printed once and stored hashed")
    create.add_argument("--label", default="cli", help="what the key is for (shown by list)")
    create.add_argument("--admin", action="store_true",
                        help="an admin key: may also ingest topics and run workflows (default: a client key)")
    actions.add_parser("list", help="the stored keys: id, label, when made (never the keys)")
    revoke = actions.add_parser("revoke", help="delete a stored key; instances refuse it within 30 s")
    revoke.add_argument("id", help="the key's id as `list` shows it (at least 8 characters)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agent.store.keys import list_keys, make_key, revoke_key

    from ..store import open_store

    store = open_store(get_settings())
    try:
        if args.action == "create":
            print(make_key(store, args.label, role="admin" if args.admin else "client"))
        elif args.action == "list":
            for key in list_keys(store):
                print(f"{key.id}  {key.created_at}  {key.role:<6}  {key.label}")
        else:
            gone = revoke_key(store, args.id)
            print(f"revoked {gone.id} ({gone.label})")
    finally:
        store.close()
    return 0
