"""What an OpenAI-compatible server publishes about the model it serves: the context window, looked up
once a run (run.model_calls.with_server_context), briefly, and never fatally.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from code_commit.config.keys import ApiKey
from code_commit.llm.endpoint import Endpoint
from code_commit.llm.server_errors import whole_number
from code_commit.llm.transport import tls_context

_PROBE_TIMEOUT = 3.0  # seconds for each look at what a server publishes: never worth a longer wait
_PROBE_BYTES = 1 << 20  # of each such answer read at most (llama.cpp's /props carries the chat template)


@dataclass(frozen=True)
class _PublishedContext:
    """The context window a server says it runs the model with."""

    tokens: int
    source: str  # in words, for the run's note: which request and which field


def published_context(endpoint: Endpoint, key: ApiKey | None, model: str) -> _PublishedContext | None:
    """The context window the server publishes, or None: asked once a run, _PROBE_TIMEOUT seconds at most a
    request, and never fatal (a server that publishes none, or is down, is the model call's problem).

    - llama.cpp's server: GET /props, default_generation_settings.n_ctx: a slot's context, the one a
      prompt is checked against (ggml-org/llama.cpp tools/server/server.cpp, get_props);
    - vLLM: GET /v1/models, each entry's max_model_len (vllm/entrypoints/openai/protocol.py, ModelCard);
    - llama.cpp's /v1/models entry has meta.n_ctx_train, the context the model was trained with, which
      the server's may be smaller than: the last resort (get_models, model_meta)."""
    base = endpoint.url.rstrip("/")
    root = base.removesuffix("/v1")
    props = _probe(f"{root}/props", key)
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    n_ctx = whole_number(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if n_ctx is not None:
        return _PublishedContext(n_ctx, "the server's GET /props (default_generation_settings.n_ctx)")
    listing = _probe(f"{base}/models", key)
    entries = listing.get("data") if isinstance(listing, dict) else None
    entries = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    named = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in named:
        if whole_number(entry.get("max_model_len")) is not None:
            return _PublishedContext(entry["max_model_len"], "the server's GET /v1/models (max_model_len)")
        meta = entry.get("meta")
        trained = whole_number(meta.get("n_ctx_train")) if isinstance(meta, dict) else None
        if trained is not None:
            return _PublishedContext(trained, "the server's GET /v1/models (meta.n_ctx_train, the model's own)")
    return None


def _probe(url: str, key: ApiKey | None) -> Any:
    """The JSON a GET of url answers, read up to _PROBE_BYTES; None for anything else."""
    import httpx

    headers = {"Authorization": f"Bearer {key.value}"} if key is not None and key.value else {}
    deadline = time.monotonic() + 2 * _PROBE_TIMEOUT  # a server that drips its answer is not waited on
    try:
        with (
            httpx.Client(headers=headers, verify=tls_context(httpx), timeout=_PROBE_TIMEOUT) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code != 200:
                return None
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > _PROBE_BYTES or time.monotonic() > deadline:
                    return None
        return json.loads(body)
    except (httpx.HTTPError, ValueError):
        return None
