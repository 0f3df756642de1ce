"""The names of the chat-format families, the one vocabulary the resolver and the formats share.

Unlike `analysis.requests.formats` (which renders each family), this module only names them, so
that a `ModelSpec` (a lower layer) can say which family a model uses without importing a renderer.
"""

from __future__ import annotations

# "none": text only, no chat format (embeddings, completion models, and Gemini, whose own count
# covers the text parts alone). The others are one module each in analysis.requests.formats.
FAMILIES = ("none", "openai", "harmony", "llama3", "llama4", "mistral", "qwen", "deepseek", "claude", "gemma3")
