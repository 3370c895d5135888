"""Immutable game events: the envelope, each game's event types, and the registry of their stable names."""

from loom.events.base import Event, LoomError, Payload
from loom.events.registry import decode_payload, encode_payload, payload_class

__all__ = ["Event", "LoomError", "Payload", "decode_payload", "encode_payload", "payload_class"]
