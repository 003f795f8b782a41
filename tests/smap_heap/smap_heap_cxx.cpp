// C++ allocations live in the heap slot too (findings §3.3): libstdc++'s
// operator new calls malloc, including for what a global constructor
// allocates before main(), containers, make_unique and exception objects.
// Under AddressSanitizer the heap is not exposed: assert that instead.
#include "heap_test.h"
#include "smap_test.h"

#include <malloc.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

static uintptr_t slot_lo, slot_hi;
static long checked, escapes;

static void check(const void *p, const char *what)
{
    CHECK(p != nullptr, "%s: null", what);
    checked++;
    if (HT_ASAN)
        return;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a < slot_lo || a + malloc_usable_size(const_cast<void *>(p)) > slot_hi) {
        escapes++;
        fprintf(stderr, "escape: %s at %p\n", what, p);
    }
}

// For pointers into the middle of a block (no malloc_usable_size there).
static void check_inside(const void *p, const char *what)
{
    checked++;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (!HT_ASAN && (a < slot_lo || a >= slot_hi)) {
        escapes++;
        fprintf(stderr, "escape: %s at %p\n", what, p);
    }
}

// Runs before main(): its buffer is allocated from the first calls.
struct Early {
    std::string *s;
    std::vector<int> v;
    Early() : s(new std::string(1000, 'x')), v(4096, 7) {}
};
static Early early;

struct Node {
    long payload[16];
};

int main()
{
    int nvma = 0;
    int have = ht_heap_range(ht_expected_base(), &slot_lo, &slot_hi, &nvma);
    if (HT_ASAN) {
        CHECK(nvma == 0, "ASan build: the heap must not be exposed (%d VMAs)", nvma);
    } else {
        CHECK(have && slot_lo == ht_expected_base(), "no heap slot at %#lx",
              (unsigned long)ht_expected_base());
    }
    check(early.s, "global ctor: new std::string");
    check(early.s->data(), "global ctor: string buffer");
    check(early.v.data(), "global ctor: vector buffer");

    Node *n = new Node();
    check(n, "new");
    Node *arr = new Node[100];
    check(arr, "new[]");
    std::vector<double> v(100000, 1.0);
    check(v.data(), "vector");
    std::string s(100, 'y');
    s += std::string(10000, 'z');
    check(s.data(), "string");
    std::map<int, std::string> m;
    for (int i = 0; i < 1000; i++)
        m[i] = std::to_string(i) + std::string(50, 'm');
    for (auto &kv : m)
        check(kv.second.data(), "map value");
    auto big = std::make_unique<char[]>((size_t)10 << 20);
    check(big.get(), "make_unique(10 MiB)");
    struct alignas(256) Aligned {
        char c[256];
    };
    auto *al = new Aligned;
    check(al, "aligned new");
    CHECK(reinterpret_cast<uintptr_t>(al) % 256 == 0, "aligned new not aligned");
    int caught = 0;
    try {
        throw std::runtime_error(std::string(500, 'e'));
    } catch (const std::exception &e) {
        // The exception object comes from __cxa_allocate_exception (malloc).
        check_inside(&e, "exception object");
        check_inside(e.what(), "exception message");
        caught = 1;
    }
    CHECK(caught, "exception not caught");
    delete al;
    delete n;
    delete[] arr;
    delete early.s;
    printf("cxx (local rank %d): %ld allocations checked, %ld escapes (%s)\n", ht_local_rank(),
           checked, escapes, HT_ASAN ? "ASan: not exposed" : "slot mode");
    CHECK(escapes == 0, "%ld C++ allocations outside the slot", escapes);
    return 0;
}
