-- bench/libcalls' sqlite3 workload: a fixed script, most of its library calls
-- made by libsqlite3 into libc (memcpy, memcmp, malloc, mutexes).
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO t SELECT i, printf('row %d', i * 7919 % 100000), i * 0.5 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(c) FROM t WHERE b LIKE 'row 1%';
SELECT b FROM t ORDER BY b DESC LIMIT 3;
