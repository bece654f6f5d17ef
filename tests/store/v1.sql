-- A zond store of schema 1 (before calling contexts, and before the instrs
-- tables), as zond wrote it, with one run: main (self 10, incl 40) calls f
-- 3 times (30 ns) on one thread.  Used by store_versions and cli_store_v1.
CREATE TABLE zond_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE campaigns (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT;
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, campaign INTEGER REFERENCES campaigns(id), collector TEXT, command TEXT, host TEXT, arch TEXT, clock TEXT, start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, pid INTEGER NOT NULL, exit_status INTEGER NOT NULL, term_signal INTEGER NOT NULL, overhead_ns REAL NOT NULL) STRICT;
CREATE INDEX runs_by_campaign ON runs(campaign);
CREATE TABLE run_meta (run INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run, idx)) WITHOUT ROWID, STRICT;
CREATE TABLE events (run INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL, name TEXT NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (run, idx)) WITHOUT ROWID, STRICT;
CREATE TABLE threads (run INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (run, idx)) WITHOUT ROWID, STRICT;
CREATE TABLE nodes (run INTEGER NOT NULL REFERENCES runs(id), id INTEGER NOT NULL, kind INTEGER NOT NULL, name TEXT NOT NULL, module TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, addr INTEGER NOT NULL, parent INTEGER, PRIMARY KEY (run, id)) WITHOUT ROWID, STRICT;
CREATE TABLE stats (run INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL, thread INTEGER NOT NULL, node INTEGER NOT NULL, calls INTEGER NOT NULL, PRIMARY KEY (run, idx)) WITHOUT ROWID, STRICT;
CREATE TABLE stat_costs (run INTEGER NOT NULL REFERENCES runs(id), stat INTEGER NOT NULL, event INTEGER NOT NULL, self INTEGER NOT NULL, incl INTEGER NOT NULL, min INTEGER NOT NULL, max INTEGER NOT NULL, PRIMARY KEY (run, stat, event)) WITHOUT ROWID, STRICT;
CREATE TABLE edges (run INTEGER NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL, thread INTEGER NOT NULL, kind INTEGER NOT NULL, caller INTEGER, callee INTEGER NOT NULL, calls INTEGER NOT NULL, taken INTEGER NOT NULL, site INTEGER NOT NULL, site_line INTEGER NOT NULL, PRIMARY KEY (run, idx)) WITHOUT ROWID, STRICT;
CREATE TABLE edge_costs (run INTEGER NOT NULL REFERENCES runs(id), edge INTEGER NOT NULL, event INTEGER NOT NULL, incl INTEGER NOT NULL, PRIMARY KEY (run, edge, event)) WITHOUT ROWID, STRICT;
INSERT INTO zond_meta VALUES ('format', 'zond profile store'), ('schema_version', '1');
INSERT INTO runs VALUES (1, NULL, 'record', './a.out', 'h', 'x86_64', 'tsc', 5, 50, 77, 0, 0, 0.0);
INSERT INTO events VALUES (1, 0, 'time', 'ns');
INSERT INTO threads VALUES (1, 0, 77, 77, 'main');
INSERT INTO nodes VALUES (1, 0, 0, 'main', '/a.out', 'a.c', 3, 4096, NULL), (1, 1, 0, 'f', '/a.out', 'a.c', 9, 4200, NULL);
INSERT INTO stats VALUES (1, 0, 0, 0, 1), (1, 1, 0, 1, 3);
INSERT INTO stat_costs VALUES (1, 0, 0, 10, 40, 40, 40), (1, 1, 0, 30, 30, 9, 11);
INSERT INTO edges VALUES (1, 0, 0, 0, NULL, 0, 1, 0, 0, 0), (1, 1, 0, 0, 0, 1, 3, 0, 4100, 4);
INSERT INTO edge_costs VALUES (1, 0, 0, 40), (1, 1, 0, 30);
