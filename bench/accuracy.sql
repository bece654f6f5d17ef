-- bench/accuracy.sql - the fixed SQL workload of bench/accuracy for sqlite3's
-- shell, on an in-memory database: inserts, an index, joins, grouping,
-- string functions and sorting.  Deterministic; prints a few result rows.
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, price REAL, note TEXT);
CREATE TABLE sale(id INTEGER PRIMARY KEY, item INTEGER, qty INTEGER, day INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO item SELECT i, 'item-' || printf('%06d', (i * 7919) % 100000), i % 97,
	((i * 31337) % 10000) / 100.0, substr('lorem ipsum dolor sit amet consectetur', 1 + i % 20, 12)
FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500000)
INSERT INTO sale SELECT i, 1 + (i * 48271) % 100000, 1 + i % 9, i % 365 FROM n;
CREATE INDEX sale_item ON sale(item);
CREATE INDEX item_name ON item(name);
SELECT grp, count(*), round(sum(price * qty), 2) FROM sale JOIN item ON item.id = sale.item
GROUP BY grp ORDER BY 3 DESC LIMIT 5;
SELECT upper(substr(name, 6)), length(group_concat(note, ',')) FROM item
WHERE name LIKE 'item-0%5' GROUP BY grp % 10 ORDER BY 1 LIMIT 5;
SELECT day, count(DISTINCT item), max(qty) FROM sale GROUP BY day ORDER BY 2 DESC, 1 LIMIT 5;
UPDATE item SET note = replace(note, 'o', '0') WHERE grp % 3 = 0;
SELECT count(*), sum(length(note)) FROM item WHERE note LIKE '%0%';
SELECT a.name, b.name FROM item a JOIN item b ON b.id = a.grp + 1 WHERE a.id % 1000 = 0 ORDER BY a.name LIMIT 5;
