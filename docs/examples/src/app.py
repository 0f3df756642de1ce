def main() -> None:
    print("hello, world")


if __name__ == "__main__":
    main()
