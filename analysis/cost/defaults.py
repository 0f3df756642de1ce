"""The models a cost run prices when none are named, as a constant that reads nothing.

Unlike `targets`, which resolves models to prices and tokenizers (and so loads the price data
and the model rules), this module only names the default set, so `tokenprism cost --help` can
show it without loading either.
"""

# A cross-provider default: flagship and small models of the makers people compare most,
# written as provider:model so no name matching is involved.
DEFAULT_MODELS = (
    "openai:gpt-4o-mini",
    "openai:gpt-4.1",
    "openai:gpt-5-mini",
    "openai:gpt-5.1",
    "anthropic:claude-haiku-4-5",
    "anthropic:claude-sonnet-4-5",
    "google:gemini-2.5-flash",
    "google:gemini-2.5-pro",
    "deepseek:deepseek-chat",
    "groq:qwen/qwen3-32b",
    "mistral:mistral-small-3.2-24b-instruct",
    "groq:llama-3.3-70b-versatile",
)
