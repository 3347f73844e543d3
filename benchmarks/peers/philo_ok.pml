/* Dining philosophers without deadlock, the SPIN twin of philo_ok.mcasm:
 * philo_meals.pml with the last philosopher taking its forks in the other
 * order (fork 0 first, then fork N-1), so that the forks are locked in one
 * global order and no circular wait exists. N active philosophers loop
 * forever over five steps (lock first, lock second, eat, unlock second,
 * unlock first) with a meal counter modulo MEALS each (a global array, so
 * that SPIN's statement merging does not fold eating into the next step).
 * A fork holds its owner's _pid + 1 (mcvm's monitor owner), 0 when free.
 * spin -DN=3 -DMEALS=2 -a philo_ok.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef N
#define N 3
#endif
#ifndef MEALS
#define MEALS 2
#endif

byte fork[N];
byte meals[N];

active [N] proctype phil() {
	byte l = (_pid < N - 1 -> _pid : 0);
	byte r = (_pid < N - 1 -> _pid + 1 : N - 1);
	do
	:: atomic { fork[l] == 0 -> fork[l] = _pid + 1 };
	   atomic { fork[r] == 0 -> fork[r] = _pid + 1 };
	   meals[_pid] = (meals[_pid] + 1) % MEALS;
	   fork[r] = 0;
	   fork[l] = 0
	od
}
