/* A CPU hog for the contention recording: spins until killed (record.sh pins it to the ping-pong's CPU). */
int main(void)
{
  for (volatile unsigned long i = 0;; i++)
    ;
}
