import os

# Hypothesis budget from the environment, as tiktoken's tests do.
from hypothesis import settings

settings.register_profile("tokenprism", max_examples=int(os.environ.get("TOKENPRISM_MAX_EXAMPLES", "60")), deadline=None)
settings.load_profile("tokenprism")
