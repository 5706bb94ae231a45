// cxx.cc - C++ calls for the call tracer:
//   static constructors that call functions before main, virtual calls
//   through base pointers, an exception unwinding through several
//   noinline frames (one catch-and-rethrow in the middle), std::sort with
//   a lambda comparator, and std::function calls.
// Prints deterministic results and exits with status 0.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

// ---- static constructor ----
static int init_log[4];
static int init_count;

NOINLINE static int init_value(int i) { return i * 10 + 1; }
NOINLINE static void record_init(int v) { init_log[init_count++] = v; }

struct Registry {
    int total;
    Registry() : total(0)
    {
        for (int i = 0; i < 3; i++) {
            int v = init_value(i);
            record_init(v);
            total += v;
        }
    }
};
static Registry registry;

// ---- virtual functions ----
struct Shape {
    virtual ~Shape() {}
    virtual int area() const = 0;
    virtual const char *name() const { return "shape"; }
};
struct Square : Shape {
    int s;
    explicit Square(int s_) : s(s_) {}
    int area() const override { return s * s; }
    const char *name() const override { return "square"; }
};
struct Rect : Shape {
    int w, h;
    Rect(int w_, int h_) : w(w_), h(h_) {}
    int area() const override { return w * h; }
    const char *name() const override { return "rect"; }
};
struct Tri : Shape {
    int b, h;
    Tri(int b_, int h_) : b(b_), h(h_) {}
    int area() const override { return b * h / 2; }
    // name() deliberately not overridden: uses Shape::name
};

NOINLINE static void test_virtual()
{
    std::vector<std::unique_ptr<Shape>> shapes;
    shapes.emplace_back(new Square(3));
    shapes.emplace_back(new Rect(2, 5));
    shapes.emplace_back(new Tri(4, 3));
    shapes.emplace_back(new Square(7));
    int total = 0;
    std::printf("virtual:");
    for (const auto &s : shapes) {
        std::printf(" %s=%d", s->name(), s->area());
        total += s->area();
    }
    std::printf(" total=%d\n", total);
}

// ---- exceptions ----
static int unwind_trace;

NOINLINE static int thrower(int depth)
{
    if (depth > 2)
        throw std::runtime_error("depth " + std::to_string(depth));
    return depth;
}
NOINLINE static int frame3(int d) { unwind_trace += 1; return thrower(d + 1) + 1; }
NOINLINE static int frame2(int d)
{
    try {
        return frame3(d + 1) + 1;
    } catch (const std::runtime_error &) {
        unwind_trace += 10;     // caught in the middle ...
        throw;                  // ... and rethrown
    }
}
NOINLINE static int frame1(int d) { unwind_trace += 100; return frame2(d) + 1; }

NOINLINE static void test_exceptions()
{
    int ok = frame1(0);                 // 0+1+1 -> no throw
    try {
        frame1(1);                      // thrower(3) throws
        std::printf("exception: not thrown\n");
    } catch (const std::exception &e) {
        std::printf("exception: ok=%d caught=\"%s\" trace=%d\n", ok, e.what(), unwind_trace);
    }
}

// ---- std::sort with lambda ----
NOINLINE static void test_sort()
{
    std::vector<int> v = { 15, -3, 8, 42, -20, 0, 7, 23, -1, 11 };
    int comparisons = 0;
    // sort by absolute value, ties broken by value
    std::sort(v.begin(), v.end(), [&comparisons](int a, int b) {
        comparisons++;
        int aa = a < 0 ? -a : a, bb = b < 0 ? -b : b;
        return aa != bb ? aa < bb : a < b;
    });
    std::printf("sort:");
    for (int x : v)
        std::printf(" %d", x);
    std::printf(" (compared=%s)\n", comparisons > 0 ? "yes" : "no");
}

// ---- std::function ----
NOINLINE static int twice(const std::function<int(int)> &f, int x) { return f(f(x)); }
NOINLINE static int plus7(int x) { return x + 7; }

NOINLINE static void test_function()
{
    int scale = 3;
    std::function<int(int)> f1 = plus7;
    std::function<int(int)> f2 = [scale](int x) { return x * scale; };
    std::vector<std::function<int(int)>> chain = { f1, f2, f1 };
    int x = 1;
    for (const auto &f : chain)
        x = f(x);
    std::printf("function: twice_plus7=%d twice_scale=%d chain=%d\n",
                twice(f1, 5), twice(f2, 5), x);
}

int main()
{
    std::printf("static: count=%d values=%d,%d,%d total=%d\n", init_count,
                init_log[0], init_log[1], init_log[2], registry.total);
    test_virtual();
    test_exceptions();
    test_sort();
    test_function();
    return 0;
}
