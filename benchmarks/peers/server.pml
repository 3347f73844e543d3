/* A server and its clients, the Promela model of the tutorial "Porting a
 * Promela model" in docs/asm.md, and the SPIN twin of server.mcasm. The
 * server serves requests forever and waits at an end label when there is
 * none; each of C clients posts one request when the slot is free. The
 * guards wait on the one monitor in Java style: w[p] is 1 while p waits
 * and 2 once notified, until it holds the monitor again; lock holds the
 * owner's _pid + 1.
 * spin -DC=2 -a server.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef C
#define C 2
#endif
#define NT (C + 1)

byte lock;
byte req;	/* the pending request: the client's _pid, 0 when none */
byte served;
byte w[NT];

inline notifyall() {
	i = 0;
	do
	:: i < NT -> if :: w[i] == 1 -> w[i] = 2 :: else fi; i++
	:: else -> break
	od;
	i = 0
}

inline wait() {
	lock = 0; w[_pid] = 1;
end:	w[_pid] == 2 && lock == 0 -> lock = _pid + 1; w[_pid] = 0
}

active proctype server() {
	byte i;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: req == 0 -> wait()
		:: else -> break
		od;
		served++;
		req = 0;
		notifyall();
		lock = 0
	   }
	od
}

active [C] proctype client() {
	byte i;
	atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: req != 0 -> wait()
		:: else -> break
		od;
		req = _pid;
		notifyall();
		lock = 0
	}
}
