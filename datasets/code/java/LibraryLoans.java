import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Tracks book loans for a small lending library and computes overdue fines. */
public final class LibraryLoans {

    private static final int LOAN_DAYS = 21;
    private static final long FINE_CENTS_PER_DAY = 15;

    record Book(String isbn, String title, String author) {}

    record Loan(Book book, String memberId, LocalDate borrowedOn) {
        LocalDate dueOn() {
            return borrowedOn.plusDays(LOAN_DAYS);
        }

        long daysOverdue(LocalDate today) {
            return Math.max(0, ChronoUnit.DAYS.between(dueOn(), today));
        }
    }

    private final Map<String, Book> catalogue = new HashMap<>();
    private final Map<String, Loan> activeLoans = new HashMap<>();

    public void addBook(String isbn, String title, String author) {
        catalogue.put(isbn, new Book(isbn, title, author));
    }

    public Loan lend(String isbn, String memberId, LocalDate date) {
        Book book = Optional.ofNullable(catalogue.get(isbn))
                .orElseThrow(() -> new IllegalArgumentException("No book with ISBN " + isbn));
        if (activeLoans.containsKey(isbn)) {
            throw new IllegalStateException(book.title() + " is already on loan");
        }
        Loan loan = new Loan(book, memberId, date);
        activeLoans.put(isbn, loan);
        return loan;
    }

    public long giveBack(String isbn, LocalDate today) {
        Loan loan = activeLoans.remove(isbn);
        if (loan == null) {
            throw new IllegalStateException("ISBN " + isbn + " is not on loan");
        }
        return loan.daysOverdue(today) * FINE_CENTS_PER_DAY;
    }

    public List<Loan> overdue(LocalDate today) {
        List<Loan> late = new ArrayList<>();
        for (Loan loan : activeLoans.values()) {
            if (loan.daysOverdue(today) > 0) {
                late.add(loan);
            }
        }
        late.sort(Comparator.comparing(Loan::dueOn));
        return late;
    }

    public static void main(String[] args) {
        LibraryLoans library = new LibraryLoans();
        library.addBook("978-0-00-000001-1", "The Quiet Harbour", "M. Lindqvist");
        library.addBook("978-0-00-000002-8", "Notes on Rivers", "A. Osei");
        library.addBook("978-0-00-000003-5", "Counting Stars", "R. Tanaka");

        LocalDate start = LocalDate.of(2024, 3, 1);
        library.lend("978-0-00-000001-1", "M-17", start);
        library.lend("978-0-00-000002-8", "M-04", start.plusDays(10));

        LocalDate today = LocalDate.of(2024, 4, 2);
        for (Loan loan : library.overdue(today)) {
            System.out.printf("%-20s due %s, %d day(s) late%n",
                    loan.book().title(), loan.dueOn(), loan.daysOverdue(today));
        }
        long fine = library.giveBack("978-0-00-000001-1", today);
        System.out.printf("Fine: %d.%02d%n", fine / 100, fine % 100);
    }
}
