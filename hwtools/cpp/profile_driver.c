/* Stand-alone driver of a Verilated console or instance harness library for instruction counts
 * (hwtools/sim_profile.py): no Python in the process, so callgrind counts the model and the
 * harness alone, and the run takes seconds under it.
 *
 *   profile_driver console LIB STATE FRAMES
 *       restores a con_save snapshot (STATE, a file) and runs FRAMES ALE update() calls, each with
 *       a joystick input drawn from a fixed LCG (the same for every build) and a RIOT RAM read;
 *   profile_driver instance LIB STATE FRAMES STATUS MASK WANT GAP REWARD REWARD_VAL RULES RULES_VAL
 *       restores an inst_save snapshot taken just after an episode's start command and answers
 *       FRAMES host turns (one a frame): polls STATUS until (value & MASK) == WANT every GAP
 *       clocks, then writes REWARD_VAL to REWARD and RULES_VAL to RULES (reward 0, not terminal).
 *
 * Prints one line: frames, clocks, CPU seconds (clock()), frames per CPU-second.
 * Exit status 1 on a missing symbol, an unreadable file or a bus error. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void* sym(void* lib, const char* name) {
    void* s = dlsym(lib, name);
    if (!s) { fprintf(stderr, "profile_driver: no symbol %s\n", name); exit(1); }
    return s;
}

static uint8_t* slurp(const char* path, long* n) {
    FILE* f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "profile_driver: cannot read %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t* buf = malloc((size_t)*n);
    if (!buf || fread(buf, 1, (size_t)*n, f) != (size_t)*n) { fprintf(stderr, "profile_driver: short read\n"); exit(1); }
    fclose(f);
    return buf;
}

int main(int argc, char** argv) {
    if (argc < 5) { fprintf(stderr, "usage: profile_driver console|instance LIB STATE FRAMES ...\n"); return 2; }
    void* lib = dlopen(argv[2], RTLD_NOW);
    if (!lib) { fprintf(stderr, "profile_driver: %s\n", dlerror()); return 1; }
    long n;
    uint8_t* state = slurp(argv[3], &n);
    int frames = atoi(argv[4]);
    long long clocks = 0;
    clock_t t0;
    if (strcmp(argv[1], "console") == 0) {
        void* (*con_new)(void) = sym(lib, "con_new");
        void (*con_restore)(void*, const uint8_t*, uint64_t) = sym(lib, "con_restore");
        void (*con_inputs)(void*, int, int, int, int, const uint32_t*, const int32_t*) = sym(lib, "con_inputs");
        int (*con_run_frame)(void*, uint8_t*, int64_t*, int) = sym(lib, "con_run_frame");
        void (*con_read_ram)(void*, int, uint8_t*, int) = sym(lib, "con_read_ram");
        static uint8_t screen[256 * 160];
        uint8_t ram[128];
        int64_t info[8];
        uint32_t needed[4] = {0, 0, 0, 0};
        int32_t modes[4] = {0, 0, 0, 0};
        unsigned s = 1;
        void* h = con_new();
        con_restore(h, state, (uint64_t)n);
        t0 = clock();
        for (int i = 0; i < frames; ++i) {
            s = s * 1103515245u + 12345u;
            int a = (s >> 16) & 0x1f;
            con_inputs(h, 0x0f | ((a & 0xf) << 4), 0x3f, (a >> 4) & 1, 1, needed, modes);
            con_run_frame(h, screen, info, 25000);
            clocks += info[0];
            con_read_ram(h, 2, ram, 128);
        }
    } else if (strcmp(argv[1], "instance") == 0 && argc == 13) {
        void* (*inst_new)(void) = sym(lib, "inst_new");
        void (*inst_restore)(void*, const uint8_t*, uint64_t) = sym(lib, "inst_restore");
        int64_t (*inst_poll)(void*, uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, int) = sym(lib, "inst_poll");
        int (*inst_write)(void*, uint32_t, uint32_t, int) = sym(lib, "inst_write");
        uint64_t (*inst_cycles)(void*) = sym(lib, "inst_cycles");
        uint32_t a[8];
        for (int i = 0; i < 8; ++i) a[i] = (uint32_t)strtoul(argv[5 + i], 0, 0);
        void* h = inst_new();
        inst_restore(h, state, (uint64_t)n);
        uint64_t c0 = inst_cycles(h);
        t0 = clock();
        for (int i = 0; i < frames; ++i) {
            if (inst_poll(h, a[0], a[1], a[2], a[3], 10000000, 1000) < 0 || inst_write(h, a[4], a[5], 1000) != 0 ||
                inst_write(h, a[6], a[7], 1000) != 0) {
                fprintf(stderr, "profile_driver: the instance stopped answering at frame %d\n", i);
                return 1;
            }
        }
        clocks = (long long)(inst_cycles(h) - c0);
    } else {
        fprintf(stderr, "profile_driver: bad arguments\n");
        return 2;
    }
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf("frames %d clocks %lld cpu_s %.4f frames_per_cpu_s %.2f\n", frames, clocks, cpu, cpu > 0 ? frames / cpu : 0.0);
    return 0;
}
