"""Word statistics for plain-text files: counts, lengths and the top words."""
import re
import sys
from collections import Counter
from pathlib import Path

wordPattern = re.compile(r"[A-Za-z']+")
stopWords = frozenset({"the", "a", "an", "and", "or", "of", "to", "in", "is", "it"})


def readWords(filePath, keepStopWords=False):
    rawText = Path(filePath).read_text(encoding="utf-8")
    allWords = [word.lower() for word in wordPattern.findall(rawText)]
    if keepStopWords:
        return allWords
    return [word for word in allWords if word not in stopWords]


def averageWordLength(wordList):
    if not wordList:
        return 0.0
    totalLetters = sum(len(word) for word in wordList)
    return totalLetters / len(wordList)


def longestWords(wordList, howMany=5):
    uniqueWords = sorted(set(wordList), key=lambda word: (-len(word), word))
    return uniqueWords[:howMany]


def summariseFile(filePath, topCount=10):
    wordList = readWords(filePath)
    wordCounts = Counter(wordList)
    return {
        "fileName": Path(filePath).name,
        "totalWords": len(wordList),
        "distinctWords": len(wordCounts),
        "meanLength": round(averageWordLength(wordList), 2),
        "longestWords": longestWords(wordList),
        "topWords": wordCounts.most_common(topCount),
    }


def printSummary(fileSummary):
    print(f"== {fileSummary['fileName']} ==")
    print(f"words: {fileSummary['totalWords']} ({fileSummary['distinctWords']} distinct)")
    print(f"mean length: {fileSummary['meanLength']}")
    print("longest: " + ", ".join(fileSummary["longestWords"]))
    for rankNumber, (wordText, wordCount) in enumerate(fileSummary["topWords"], start=1):
        print(f"{rankNumber:>3}. {wordText:<15} {wordCount}")


def main(argumentList):
    if not argumentList:
        print("usage: word_stats FILE [FILE ...]", file=sys.stderr)
        return 2
    for filePath in argumentList:
        printSummary(summariseFile(filePath))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
