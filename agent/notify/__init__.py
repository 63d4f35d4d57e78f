"""Push channels: the digest and watch alerts to the apps people read (WeCom, Feishu, DingTalk,
Telegram, ntfy, Bark, Slack, email …), through apprise URLs (`TRENDLENS_NOTIFY_URLS`)."""

from __future__ import annotations

from .channel import Channel, ChannelHealth
from .message import Message, alert_message, digest_message
from .notifier import Delivery, Notifier

__all__ = ["Channel", "ChannelHealth", "Delivery", "Message", "Notifier", "alert_message", "digest_message"]
