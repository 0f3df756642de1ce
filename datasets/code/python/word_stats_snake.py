"""Word statistics for plain-text files: counts, lengths and the top words."""
import re
import sys
from collections import Counter
from pathlib import Path

WORD_PATTERN = re.compile(r"[A-Za-z']+")
STOP_WORDS = frozenset({"the", "a", "an", "and", "or", "of", "to", "in", "is", "it"})


def read_words(file_path, keep_stop_words=False):
    raw_text = Path(file_path).read_text(encoding="utf-8")
    all_words = [word.lower() for word in WORD_PATTERN.findall(raw_text)]
    if keep_stop_words:
        return all_words
    return [word for word in all_words if word not in STOP_WORDS]


def average_word_length(word_list):
    if not word_list:
        return 0.0
    total_letters = sum(len(word) for word in word_list)
    return total_letters / len(word_list)


def longest_words(word_list, how_many=5):
    unique_words = sorted(set(word_list), key=lambda word: (-len(word), word))
    return unique_words[:how_many]


def summarise_file(file_path, top_count=10):
    word_list = read_words(file_path)
    word_counts = Counter(word_list)
    return {
        "file_name": Path(file_path).name,
        "total_words": len(word_list),
        "distinct_words": len(word_counts),
        "mean_length": round(average_word_length(word_list), 2),
        "longest_words": longest_words(word_list),
        "top_words": word_counts.most_common(top_count),
    }


def print_summary(file_summary):
    print(f"== {file_summary['file_name']} ==")
    print(f"words: {file_summary['total_words']} ({file_summary['distinct_words']} distinct)")
    print(f"mean length: {file_summary['mean_length']}")
    print("longest: " + ", ".join(file_summary["longest_words"]))
    for rank_number, (word_text, word_count) in enumerate(file_summary["top_words"], start=1):
        print(f"{rank_number:>3}. {word_text:<15} {word_count}")


def main(argument_list):
    if not argument_list:
        print("usage: word_stats FILE [FILE ...]", file=sys.stderr)
        return 2
    for file_path in argument_list:
        print_summary(summarise_file(file_path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
