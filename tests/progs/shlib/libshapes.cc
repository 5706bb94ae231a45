// libshapes.cc - a C++ shared library for the call tracer
// (libshapes.so.1):
//  - a class hierarchy with virtual calls through base pointers (and a
//    virtual call from a base class method), objects made with new and
//    kept in std::vector / std::unique_ptr (calls into libstdc++);
//  - a static object whose constructor makes calls before main;
//  - an exception thrown several noinline frames deep and caught inside
//    the library (unwinding through the library's own frames);
//  - extern "C" entry points, called by libcalc.so.1 and by the program.
// Everything is deterministic.
#include <memory>
#include <stdexcept>
#include <vector>

#include "shlib.h"

#define NOINLINE __attribute__((noinline))

namespace {

NOINLINE int twice(int x) { return x + x; }

struct Shape {
    virtual ~Shape() {}
    virtual int area() const = 0;
    virtual int sides() const { return 0; }
    NOINLINE int weight() const { return area() + twice(sides()); }  // virtual calls
};

struct Rect : Shape {
    int w, h;
    Rect(int w_, int h_) : w(w_), h(h_) {}
    int area() const override { return w * h; }
    int sides() const override { return 4; }
};

struct Square : Rect {
    explicit Square(int s) : Rect(s, s) {}
    int area() const override { return Rect::area() + 1; }          // a marker
};

struct Triangle : Shape {
    int b, h;
    Triangle(int b_, int h_) : b(b_), h(h_) {}
    int area() const override { return b * h / 2; }
    int sides() const override { return 3; }
};

NOINLINE std::unique_ptr<Shape> make_shape(int i)
{
    switch (i % 3) {
    case 0: return std::unique_ptr<Shape>(new Rect(i + 1, i + 2));
    case 1: return std::unique_ptr<Shape>(new Square(i + 1));
    default: return std::unique_ptr<Shape>(new Triangle(i + 2, i + 4));
    }
}

// static constructor: calls before main
struct Registry {
    int total;
    Registry() : total(0)
    {
        for (int i = 0; i < 3; i++)
            total += make_shape(i)->weight();
    }
};
Registry registry;

NOINLINE int checked_side(int s)
{
    if (s < 0)
        throw std::invalid_argument("negative side");
    return s;
}

NOINLINE int square_area(int s)                 // one frame between throw and catch
{
    Square sq(checked_side(s));
    const Shape &shape = sq;
    return shape.area();
}

}  // namespace

extern "C" int shapes_total_area(int n)
{
    std::vector<std::unique_ptr<Shape>> v;
    for (int i = 0; i < n; i++)
        v.push_back(make_shape(i));
    int total = registry.total;
    for (const auto &s : v)
        total += s->weight();
    return total;
}

extern "C" int shapes_checked_sum(const int *sides, int n, int *errors)
{
    int total = 0;
    *errors = 0;
    for (int i = 0; i < n; i++) {
        try {
            total += square_area(sides[i]);
        } catch (const std::invalid_argument &) {
            ++*errors;
        }
    }
    return total;
}
