/* Handle encoding shared with the MPICH ABI: bits 30-31 kind, bits 26-29 object class, the
 * rest an index. Predefined objects use kind 1; objects Ferry creates use kind 2, with the
 * index into that class's table in the low 26 bits. */
#ifndef FY_HANDLE_H
#define FY_HANDLE_H

#include <stdint.h>

enum {
    FY_HKIND_INVALID = 0,
    FY_HKIND_BUILTIN = 1,
    FY_HKIND_DIRECT = 2,
};

enum {
    FY_HCLASS_COMM = 0x1,
    FY_HCLASS_GROUP = 0x2,
    FY_HCLASS_DATATYPE = 0x3,
    FY_HCLASS_FILE = 0x4,
    FY_HCLASS_ERRHANDLER = 0x5,
    FY_HCLASS_OP = 0x6,
    FY_HCLASS_INFO = 0x7,
    FY_HCLASS_WIN = 0x8,
    FY_HCLASS_KEYVAL = 0x9,
    FY_HCLASS_REQUEST = 0xb,
    FY_HCLASS_SESSION = 0xe,
};

#define FY_HINDEX_BITS 26
#define FY_HINDEX_MASK ((1u << FY_HINDEX_BITS) - 1)

static inline unsigned fy_handle_kind(int h)
{
    return ((uint32_t)h >> 30) & 3u;
}
static inline unsigned fy_handle_class(int h)
{
    return ((uint32_t)h >> 26) & 0xfu;
}
static inline unsigned fy_handle_index(int h)
{
    return (uint32_t)h & FY_HINDEX_MASK;
}
static inline int fy_handle_make(unsigned kind, unsigned cls, unsigned index)
{
    return (int)((kind << 30) | (cls << 26) | (index & FY_HINDEX_MASK));
}

#endif
