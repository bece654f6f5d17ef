/* forever.c - calls tick() until QEMU is killed (inject.sh: a lost connection). */
volatile unsigned n_tick;

__attribute__((noipa)) void tick(void)
{
	n_tick++;
}

int main(void)
{
	for (;;)
		tick();
}
