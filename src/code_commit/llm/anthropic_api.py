"""The Anthropic Messages API through the official SDK, always streaming.

The SDK is imported here, when a call is about to be made, never at start-up: importing it
costs over a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..errors import ServiceError
from ..prompts import Prompt
from ..settings import ApiKey, Settings
from .base import Completion, Usage


class AnthropicProvider:
    def __init__(self, settings: Settings, key: ApiKey) -> None:
        self.settings = settings
        self.key = key
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            import anthropic

            # The key goes in the constructor (and so in the x-api-key header), never in a URL.
            # max_retries=0: retries are ours, so attempts never multiply.
            self._client = anthropic.Anthropic(api_key=self.key.value, base_url=self.settings.base_url, max_retries=0)
        return self._client

    def complete(self, prompt: Prompt, on_text: Callable[[str], None] | None = None) -> Completion:
        import anthropic

        client = self._get_client()
        started = time.monotonic()
        try:
            with client.messages.stream(
                model=self.settings.model,
                max_tokens=self.settings.max_tokens,
                system=[{"type": "text", "text": s.text} for s in prompt.system],
                messages=[{"role": "user", "content": [{"type": "text", "text": s.text} for s in prompt.user]}],
            ) as stream:
                for text in stream.text_stream:
                    if on_text:
                        on_text(text)
                message = stream.get_final_message()
        except anthropic.AuthenticationError as exc:
            raise ServiceError(
                f"the service refused the API key from {self.key.source} (HTTP {exc.status_code}); "
                "check that the key is valid"
            ) from exc
        except anthropic.APIStatusError as exc:
            raise ServiceError(f"the model service answered HTTP {exc.status_code}: {exc.message}") from exc
        except anthropic.APIConnectionError as exc:
            raise ServiceError(f"cannot reach the model service: {exc}") from exc
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = message.usage
        return Completion(
            text=text,
            stop_reason=message.stop_reason or "unknown",
            usage=Usage(
                input_tokens=usage.input_tokens or 0,
                output_tokens=usage.output_tokens or 0,
                cache_write_tokens=usage.cache_creation_input_tokens or 0,
                cache_read_tokens=usage.cache_read_input_tokens or 0,
            ),
            duration=time.monotonic() - started,
        )
