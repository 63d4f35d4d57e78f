"""The outbox: pushes handed over without waiting, a bounded queue and a bounded share per owner."""

from __future__ import annotations

import asyncio

from agent.notify.message import Message
from agent.notify.notifier import Delivery
from agent.notify.outbox import Outbox, Push

MESSAGE = Message(title="t", markdown="m", text="m")


class Silent:
    """A notifier whose channels answer only when told to."""

    def __init__(self) -> None:
        self.answer = asyncio.Event()
        self.sent = 0

    async def send(self, message: Message) -> list[Delivery]:
        await self.answer.wait()
        self.sent += 1
        return [Delivery(channel="json#1", ok=True, attempts=1)]


async def test_one_owner_cannot_take_more_than_its_share_of_the_queue() -> None:
    outbox = Outbox(size=10, workers=1, share=2)
    silent, done = Silent(), []

    async def record(sent: bool) -> None:
        done.append(sent)

    def push(owner: str) -> Push:
        return Push(notifier=silent, message=MESSAGE, done=record, owner=owner)  # type: ignore[arg-type]

    assert [outbox.offer(push("tenant")) for _ in range(3)] == [True, True, False]
    assert outbox.offer(push("other"))  # another owner still has room
    assert outbox.backed_up and outbox.refused == 1
    silent.answer.set()
    await outbox.drain()
    assert done == [True, True, True] and outbox.offer(push("tenant"))  # its share is free again
    await outbox.drain()
    outbox.close()


async def test_a_tenant_whose_channels_never_answer_holds_one_worker_and_the_others_send() -> None:
    outbox = Outbox(size=100, workers=4, share=50)
    silent, answering, done = Silent(), Silent(), []
    answering.answer.set()

    async def record(sent: bool) -> None:
        done.append(sent)

    for _ in range(20):  # offered first: a FIFO would give all four workers to it
        assert outbox.offer(Push(notifier=silent, message=MESSAGE, done=record, owner="hostile"))  # type: ignore[arg-type]
    for owner in ("a", "b", "c", "d", "e"):
        assert outbox.offer(Push(notifier=answering, message=MESSAGE, done=record, owner=owner))  # type: ignore[arg-type]
    async with asyncio.timeout(2):
        while len(done) < 5:
            await asyncio.sleep(0.01)
    assert answering.sent == 5 and silent.sent == 0 and outbox.waiting == 20
    silent.answer.set()
    async with asyncio.timeout(5):
        await outbox.drain()
    assert silent.sent == 20 and len(done) == 25
    outbox.close()
