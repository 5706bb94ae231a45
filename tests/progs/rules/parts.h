int a_work(int x);
int b_work(int x);
