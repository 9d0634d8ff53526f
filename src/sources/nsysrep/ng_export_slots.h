/* ng_export_slots: how many nsys exports run at once, across every process of a
 * run.  A single gate counts its slots in memory.  A batch, whose gates
 * are child processes, makes a run directory
 * ($TMPDIR/nsys-gate-slots.XXXXXX) of N lock files before it forks them;
 * an export holds one of them (flock) while nsys runs, so the limit holds
 * across gates, and a gate that dies releases its slot with its
 * descriptors: no slot is ever lost.
 *
 * N = min(jobs, the memory bound), at least 1.  The memory bound is
 * MemAvailable (/proc/meminfo) * 3/4 divided by one export's estimate,
 * 256 MiB + 4 x the largest .nsys-rep of the run (nsys 2023.4 exporting
 * the project's samples peaked at 30-36 MB, about 30 MB plus 3x the
 * report; nsys stats on a 5M-kernel export reached 1.2 GB).  Without
 * /proc/meminfo only jobs counts.
 *
 * Ownership: one set of slots per process tree; the process that made it
 * removes it (ng_export_slots_teardown() in a child that inherited it does
 * nothing).  Thread-safe. */
#ifndef NG_EXPORT_SLOTS_H
#define NG_EXPORT_SLOTS_H

#include <stddef.h>
#include <stdint.h>

/* The slot count for a run: jobs (<= 0: one per processor) and the
 * memory bound above. */
long ng_export_slots_count(long jobs, uint64_t largest_report);
/* The same rule for a given MemAvailable in bytes (0: unknown). */
long ng_export_slots_fit(long jobs, uint64_t largest_report, uint64_t mem_available);

/* Makes the run's n slots, unless this process already has some (made
 * here or inherited from the parent): shared (the run directory, for a
 * batch about to fork its gates) or in this process only.  Returns 1 when
 * this call made them (and the caller tears them down), 0 when they were
 * there, -1 when they could not be made (then there is no limit but the
 * caller's threads). */
int ng_export_slots_setup(long n, int shared);
void ng_export_slots_teardown(void);

/* Waits for a free slot; returns a handle for ng_export_slots_release(), or -1
 * when there are no slots. */
int ng_export_slots_acquire(void);
void ng_export_slots_release(int slot);

#endif
