-- Schema and reporting queries for a small online bookshop.
-- Written for SQLite; the window functions need version 3.25 or later.

CREATE TABLE authors (
    author_id   INTEGER PRIMARY KEY,
    full_name   TEXT    NOT NULL,
    country     TEXT
);

CREATE TABLE books (
    book_id     INTEGER PRIMARY KEY,
    title       TEXT    NOT NULL,
    author_id   INTEGER NOT NULL REFERENCES authors (author_id),
    published   INTEGER CHECK (published BETWEEN 1450 AND 2100),
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0)
);

CREATE TABLE orders (
    order_id    INTEGER PRIMARY KEY,
    customer    TEXT    NOT NULL,
    ordered_at  TEXT    NOT NULL DEFAULT (datetime('now'))
);

CREATE TABLE order_lines (
    order_id    INTEGER NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
    book_id     INTEGER NOT NULL REFERENCES books (book_id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (order_id, book_id)
);

CREATE INDEX idx_books_author ON books (author_id);

INSERT INTO authors (author_id, full_name, country) VALUES
    (1, 'Ines Valdivia', 'CL'),
    (2, 'Tomasz Wrona', 'PL'),
    (3, 'Grace Adeyemi', 'NG');

INSERT INTO books (book_id, title, author_id, published, price_cents) VALUES
    (10, 'Salt and Copper', 1, 2016, 1899),
    (11, 'The Glass Orchard', 1, 2021, 2250),
    (12, 'Winter Signals', 2, 2019, 1499),
    (13, 'A Map of Small Rivers', 3, 2023, 2799);

INSERT INTO orders (order_id, customer, ordered_at) VALUES
    (100, 'k.mensah@example.com', '2024-05-02 10:15:00'),
    (101, 'l.berg@example.com',   '2024-05-02 18:40:00'),
    (102, 'k.mensah@example.com', '2024-05-09 08:05:00');

INSERT INTO order_lines (order_id, book_id, quantity) VALUES
    (100, 10, 1), (100, 13, 2), (101, 12, 1), (102, 11, 1), (102, 13, 1);

-- Revenue per author, best sellers first.
SELECT a.full_name,
       SUM(ol.quantity)                        AS copies,
       printf('%.2f', SUM(ol.quantity * b.price_cents) / 100.0) AS revenue
FROM order_lines AS ol
JOIN books   AS b ON b.book_id = ol.book_id
JOIN authors AS a ON a.author_id = b.author_id
GROUP BY a.author_id
ORDER BY SUM(ol.quantity * b.price_cents) DESC;

-- Each customer's running total, order by order.
SELECT o.customer,
       o.order_id,
       SUM(SUM(ol.quantity * b.price_cents)) OVER (
           PARTITION BY o.customer ORDER BY o.ordered_at
       ) / 100.0 AS running_total
FROM orders AS o
JOIN order_lines AS ol ON ol.order_id = o.order_id
JOIN books AS b ON b.book_id = ol.book_id
GROUP BY o.order_id
ORDER BY o.customer, o.ordered_at;
