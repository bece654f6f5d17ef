/*
 * combine_test.c - profile_combine_selves on campaigns the test builds
 * (one event, each run's functions on a thread of their own, as the store
 * gives a campaign's runs back merged): callees measured in other runs
 * taken out at the graph's calls per call times their average; one no run
 * measured passed through to its callees; callees of the function's own
 * run left as that run subtracted them (exact); recursion across functions
 * at the graph's share of self, its contexts' rounded selves summing to
 * the rounded product; never below 0; a graph without call edges
 * or without the function changes nothing.
 */
#include "check.h"
#include "model/profile.h"

#define NRUNS 8

struct camp {
	struct zp_profile *p, *g;
	unsigned char measured[NRUNS][16];
	size_t nruns;
};

static uint32_t node(struct zp_profile *p, const char *name)
{
	return profile_node(p, ZP_FUNCTION, name, "/prog", "", 0, 0);
}

/* name measured in run r: its calls, inclusive and self */
static void fn(struct camp *c, size_t r, const char *name, uint64_t calls, uint64_t incl,
	       uint64_t self)
{
	uint32_t th = profile_thread(c->p, 1, 100 + (int64_t)r, "");
	uint32_t n = node(c->p, name);
	struct zp_stat *s = profile_stat(c->p, th, n);
	s->calls = calls;
	s->incl[0] = incl;
	s->self[0] = self;
	c->measured[r][n] = 1;
	if (r + 1 > c->nruns)
		c->nruns = r + 1;
}

/* the graph's calls of name, its self and inclusive, and its edges */
static void gfn(struct camp *c, const char *name, uint64_t calls, uint64_t incl, uint64_t self)
{
	struct zp_stat *s = profile_stat(c->g, 0, node(c->g, name));
	s->calls = calls;
	s->incl[0] = incl;
	s->self[0] = self;
}

static void gcall(struct camp *c, const char *from, const char *to, uint64_t calls)
{
	profile_edge(c->g, 0, ZP_CALL, node(c->g, from), node(c->g, to))->calls += calls;
}

static void start(struct camp *c)
{
	memset(c, 0, sizeof *c);
	c->p = profile_new();
	c->g = profile_new();
	profile_event(c->p, "time", "ns");
	profile_event(c->g, "time", "ns");
	profile_thread(c->g, 1, 1, "");
}

static long run(struct camp *c, size_t *missing)
{
	unsigned char m[NRUNS * 16];
	size_t n = c->p->nnodes;
	for (size_t r = 0; r < c->nruns; r++)
		for (size_t i = 0; i < n; i++)
			m[r * n + i] = c->measured[r][i];
	return profile_combine_selves(c->p, m, c->nruns, c->g, missing);
}

static uint64_t self_of(const struct camp *c, const char *name)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < c->p->nstats; i++)
		if (!strcmp(c->p->nodes[c->p->stats[i].node].name, name))
			sum += c->p->stats[i].self[0];
	return sum;
}

static void end(struct camp *c)
{
	profile_free(c->p);
	profile_free(c->g);
}

int main(void)
{
	struct camp c;
	size_t missing;

	/* --per-run 1 on main -> outer -> {heavy x30, light x10} */
	start(&c);
	fn(&c, 0, "main", 1, 1000, 1000);
	fn(&c, 1, "outer", 1, 990, 990);
	fn(&c, 2, "heavy", 30, 600, 600);
	fn(&c, 3, "light", 10, 380, 380);
	gfn(&c, "main", 1, 1100, 5);
	gfn(&c, "outer", 1, 1095, 5);
	gfn(&c, "heavy", 30, 700, 700);
	gfn(&c, "light", 10, 390, 390);
	gcall(&c, "main", "outer", 1);
	gcall(&c, "outer", "heavy", 30);
	gcall(&c, "outer", "light", 10);
	CHECK(run(&c, &missing) == 2);
	CHECK_EQ_U64(missing, 0);
	CHECK_EQ_U64(self_of(&c, "main"), 10);               /* 1000 - 990 */
	CHECK_EQ_U64(self_of(&c, "outer"), 10);              /* 990 - 30 x 20 - 10 x 38 */
	CHECK_EQ_U64(self_of(&c, "heavy"), 600);
	CHECK_EQ_U64(self_of(&c, "light"), 380);
	CHECK_EQ_U64(c.p->stats[0].incl[0], 1000);          /* inclusive untouched */
	end(&c);

	/* --per-run 2: main with outer (main's self exact from its run), heavy with light */
	start(&c);
	fn(&c, 0, "main", 1, 1000, 5);
	fn(&c, 0, "outer", 1, 993, 993);
	fn(&c, 1, "heavy", 30, 600, 600);
	fn(&c, 1, "light", 10, 380, 380);
	gcall(&c, "main", "outer", 1);
	gcall(&c, "outer", "heavy", 30);
	gcall(&c, "outer", "light", 10);
	gfn(&c, "main", 1, 1, 1);
	gfn(&c, "outer", 1, 1, 1);
	gfn(&c, "heavy", 30, 1, 1);
	gfn(&c, "light", 10, 1, 1);
	CHECK(run(&c, &missing) == 1);
	CHECK_EQ_U64(self_of(&c, "main"), 5);  /* its run's, not 1000 - 993 at averages */
	CHECK_EQ_U64(self_of(&c, "outer"), 13); /* 993 - 980 */
	end(&c);

	/* a callee the descent pruned (mid, no run): its callees through it, weighted */
	start(&c);
	fn(&c, 0, "main", 1, 1000, 1000);
	fn(&c, 1, "leaf", 4, 400, 400);
	gfn(&c, "main", 1, 1, 1);
	gfn(&c, "mid", 2, 1, 1);
	gfn(&c, "leaf", 4, 1, 1);
	gcall(&c, "main", "mid", 2);
	gcall(&c, "mid", "leaf", 4);
	CHECK(run(&c, &missing) == 1);
	CHECK_EQ_U64(self_of(&c, "main"), 600); /* 1000 - 2 x (4 / 2) x 100 */
	end(&c);

	/* even and odd call each other: the graph's share of self in each */
	start(&c);
	fn(&c, 0, "even", 5, 1000, 1000);
	fn(&c, 1, "odd", 5, 900, 900);
	gfn(&c, "even", 5, 1000, 300);
	gfn(&c, "odd", 5, 700, 200);
	gcall(&c, "even", "odd", 5);
	gcall(&c, "odd", "even", 4);
	CHECK(run(&c, &missing) == 2);
	CHECK_EQ_U64(self_of(&c, "even"), 300);
	CHECK_EQ_U64(self_of(&c, "odd"), 257); /* 900 x 2 / 7 */
	end(&c);

	/*
	 * r1 and r2 call each other, r2's run with its calling contexts (r1 not measured
	 * there, so its cost is in r2's selves): 17 x 8/17 = 8 over the five contexts, each
	 * rounded on its own gave 1 + 1 + 1 + 1 + 2 = 6 (QA s13 U F7: 7 for 8, 41 for 42)
	 */
	start(&c);
	fn(&c, 0, "r1", 4, 20, 20);
	fn(&c, 1, "r2", 5, 17, 17);
	{
		uint32_t th = profile_thread(c.p, 1, 101, ""), r2 = node(c.p, "r2"), parent = ZP_NONE;
		const uint64_t selves[] = {3, 3, 3, 3, 5};
		for (size_t i = 0; i < 5; i++) {
			parent = profile_context(c.p, th, parent, r2);
			c.p->contexts[parent].calls = 1;
			c.p->contexts[parent].self[0] = selves[i];
			c.p->contexts[parent].incl[0] = 17 - 3 * i;
		}
	}
	gfn(&c, "r1", 4, 15, 7);
	gfn(&c, "r2", 5, 17, 8);
	gcall(&c, "r2", "r1", 4);
	gcall(&c, "r1", "r2", 4);
	CHECK(run(&c, &missing) == 2);
	CHECK_EQ_U64(self_of(&c, "r2"), 8);
	{
		uint64_t sum = 0;
		for (size_t i = 0; i < c.p->ncontexts; i++)
			sum += c.p->contexts[i].self[0];
		CHECK_EQ_U64(sum, 8); /* the contexts sum to their stat */
	}
	end(&c);

	/* a callee dearer than its caller (runs that differ): 0, not below */
	start(&c);
	fn(&c, 0, "main", 1, 900, 900);
	fn(&c, 1, "outer", 1, 990, 990);
	gfn(&c, "main", 1, 1, 1);
	gfn(&c, "outer", 1, 1, 1);
	gcall(&c, "main", "outer", 1);
	CHECK(run(&c, &missing) == 1);
	CHECK_EQ_U64(self_of(&c, "main"), 0);
	end(&c);

	/* no call edges: nothing done; a function the graph lacks: left, counted */
	start(&c);
	fn(&c, 0, "main", 1, 900, 900);
	fn(&c, 1, "outer", 1, 800, 800);
	gfn(&c, "main", 1, 1, 1);
	CHECK(run(&c, &missing) == -1);
	CHECK_EQ_U64(self_of(&c, "main"), 900);
	gcall(&c, "main", "other", 1);
	CHECK(run(&c, &missing) == 0);
	CHECK_EQ_U64(missing, 1); /* outer */
	CHECK_EQ_U64(self_of(&c, "main"), 900);
	end(&c);
	return check_done();
}
