SET TimeZone = 'UTC';
CREATE SCHEMA sales;
CREATE TABLE orders (o_id bigint PRIMARY KEY, o_cust integer NOT NULL, o_amount numeric(12,2), o_ts timestamptz, o_note text DEFAULT 'none');
CREATE TABLE sales.items (id integer PRIMARY KEY, name varchar(40));
INSERT INTO orders VALUES (1, 1, 10.50, '2024-01-01 10:00:00+00', 'first'), (2, 2, 20.00, '2024-01-02 11:30:00+00', 'second'), (3, 1, 7.25, NULL, NULL);
INSERT INTO orders (o_id, o_cust, o_amount) VALUES (4, 3, 1.99);
INSERT INTO orders VALUES (2, 2, 25.00, '2024-01-02 11:30:00+00', 'second') ON CONFLICT (o_id) DO UPDATE SET o_amount = EXCLUDED.o_amount;
INSERT INTO orders VALUES (1, 9, 0, NULL, 'ignored') ON CONFLICT (o_id) DO NOTHING;
UPDATE orders SET o_note = 'updated' WHERE o_id = 1;
DELETE FROM orders WHERE o_id = 3;
INSERT INTO sales.items VALUES (1, 'widget'), (2, 'gadget');
SELECT * FROM orders ORDER BY o_id;
SELECT o_cust, count(*) AS n, sum(o_amount) AS total FROM orders GROUP BY o_cust ORDER BY o_cust;
SELECT i.name FROM sales.items i WHERE i.id = 2;
\dt
\d orders
\d sales.items
\dn
\copy (SELECT * FROM orders ORDER BY o_id) to stdout
\copy (SELECT * FROM orders ORDER BY o_id) to stdout with (format csv, header)
\copy orders from stdin
10	5	3.50	2024-03-01 00:00:00+00	tab\there
11	5	\N	\N	\N
\.
\copy sales.items from stdin with (format csv)
3,"quoted, with comma"
4,
\.
SELECT * FROM orders WHERE o_cust = 5 ORDER BY o_id;
SELECT id, name, name IS NULL AS is_null FROM sales.items ORDER BY id;
SELECT nosuchcolumn FROM orders;
SELECT count(*) FROM orders;
