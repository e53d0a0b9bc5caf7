"""The mirror: every message of a conversation with a ticket recorded in the ISP system with
``chat_messages``. The engine writes entries into the outbox (``bot.store.outbox``) in the same
transaction as the conversation step; ``MirrorWorker`` delivers them; ``ispbot mirror`` (``cli``)
shows the outbox and requeues dead entries.

    stop = asyncio.Event()
    task = asyncio.create_task(MirrorWorker(database, client).run(stop))
    ...
    stop.set(); await task
"""

from bot.mirror.backoff import retry_delay
from bot.mirror.split import MAX_CONTENT, split_content
from bot.mirror.worker import MirrorWorker

__all__ = ["MAX_CONTENT", "MirrorWorker", "retry_delay", "split_content"]
