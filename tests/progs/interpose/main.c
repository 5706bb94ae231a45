/* main.c - prints what libown's own_use returns: 100 * own_public(x)
 * + own_hidden(x); with preload.so first, own_public is preload's: 100206. */
#include <stdio.h>
int own_use(int x);
int main(void)
{
    printf("%d\n", own_use(2));
    return 0;
}
