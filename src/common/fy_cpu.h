/* The pause a spin loop makes between polls: it lets the sibling hyperthread run and saves the
 * pipeline flush when the awaited store arrives. Nothing on other architectures. */
#ifndef FY_CPU_H
#define FY_CPU_H

static inline void fy_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

#endif
