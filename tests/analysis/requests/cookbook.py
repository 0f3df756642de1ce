"""The API-verified examples of the OpenAI Cookbook notebook "How to count tokens with tiktoken".

Facts with their source: github.com/openai/openai-cookbook, examples/How_to_count_tokens_with_tiktoken.ipynb.
The request bodies are the notebook's example inputs; the totals are the `prompt_tokens` the
notebook prints as "counted by the OpenAI API", per model it called.
"""

NAMES_MESSAGES = [
    {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
    {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
    {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to do better."},
    {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."},
]

TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}]

TOOLS_MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]

# (model as the notebook called it, the body, the API's prompt_tokens, the notebook revision).
# Section 6 of the current revision called "gpt-3.5-turbo" when it meant gpt-3.5-turbo-0125, and an
# earlier revision (with gpt-3.5-turbo-0301's own rules) called the dated snapshots. Both are kept.
VERIFIED = [
    ("gpt-3.5-turbo", {"messages": NAMES_MESSAGES}, 129, "current (section 6)"),
    ("gpt-4-0613", {"messages": NAMES_MESSAGES}, 129, "current (section 6)"),
    ("gpt-4", {"messages": NAMES_MESSAGES}, 129, "current (section 6)"),
    ("gpt-4o", {"messages": NAMES_MESSAGES}, 124, "current (section 6)"),
    ("gpt-4o-mini", {"messages": NAMES_MESSAGES}, 124, "current (section 6)"),
    ("gpt-3.5-turbo-0301", {"messages": NAMES_MESSAGES}, 127, "earlier (section 6, 0301 rules)"),
    ("gpt-3.5-turbo-0613", {"messages": NAMES_MESSAGES}, 129, "earlier (section 6)"),
    ("gpt-4-0314", {"messages": NAMES_MESSAGES}, 129, "earlier (section 6)"),
    ("gpt-3.5-turbo", {"messages": TOOLS_MESSAGES, "tools": TOOLS}, 105, "current (section 7, tools)"),
    ("gpt-4", {"messages": TOOLS_MESSAGES, "tools": TOOLS}, 105, "current (section 7, tools)"),
    ("gpt-4o", {"messages": TOOLS_MESSAGES, "tools": TOOLS}, 101, "current (section 7, tools)"),
    ("gpt-4o-mini", {"messages": TOOLS_MESSAGES, "tools": TOOLS}, 101, "current (section 7, tools)"),
]
