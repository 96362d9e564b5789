/*
 * A fake libnvidia-ml.so.1 for the cpps-gpu tests: two "NVIDIA RTX A5000" boards, the second with a
 * pending row remapping after an uncorrectable ECC error. Loaded by the real nvml-wrapper through
 * `Nvml::builder().lib_path(...)`, so the crate's real NVML code path runs with no GPU.
 *
 * Signatures and constants follow NVIDIA's nvml.h (as mirrored by the nvml-wrapper-sys bindings).
 * Functions the crate may call but that are deliberately NOT exported here (page retirement, which
 * Ampere boards replace with row remapping) make nvml-wrapper answer `FailedToLoadSymbol`.
 *
 * Build-time knobs (gcc -D...), one shared object per variant:
 *   FAKE_INIT_RESULT  return code of nvmlInit_v2 (default 0; 18 = NVML_ERROR_LIB_RM_VERSION_MISMATCH)
 *   FAKE_INIT_HANG    nvmlInit_v2 never returns (a wedged driver)
 *   FAKE_DEVICE_COUNT number of boards reported (default 2)
 *   FAKE_XIDS         comma-separated XID codes delivered by nvmlEventSetWait_v2
 *   FAKE_XID_DEVICE   the board the XIDs are delivered on (default 1)
 *   FAKE_ECC_DISABLED_DEVICE   a board with ECC off (current and pending): nvmlDeviceGetEccMode
 *                     answers disabled and its volatile counters NOT_SUPPORTED (the aggregate,
 *                     lifetime counters are kept in the InfoROM and still answer)
 *   FAKE_AGGREGATE_UNSUPPORTED_DEVICE   a board whose aggregate ECC counters answer NOT_SUPPORTED
 *   FAKE_EVENTS_UNSUPPORTED_DEVICE      a board on which nvmlDeviceRegisterEvents answers
 *                     NOT_SUPPORTED; NVML documents the set as still usable afterwards, so the fake
 *                     keeps what was registered in it
 *   FAKE_EVENTS_MASK_CLAIMS   with the above, nvmlDeviceGetSupportedEventTypes still claims XID
 *                     events on that board (so the registration itself is what fails)
 *   FAKE_UUID_FAIL_ONCE_DEVICE   a board whose first nvmlDeviceGetUUID answers NVML_ERROR_UNKNOWN
 *                     (a transient failure; later calls succeed)
 *   FAKE_RECOVERY_ACTION   the value of field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (230) on every
 *                     board (nvmlDeviceGpuRecoveryAction_t); without it the field is NOT_SUPPORTED
 *   FAKE_HANDLE_ERROR_DEVICE, FAKE_HANDLE_ERROR   a board whose nvmlDeviceGetHandleByIndex_v2
 *                     answers the given nvmlReturn_t (8 INSUFFICIENT_POWER, 11 IRQ_ISSUE,
 *                     4 NO_PERMISSION, 15 GPU_IS_LOST: the answers nvml.h documents for it)
 *   FAKE_WAIT_LOST    once the XIDs are delivered, nvmlEventSetWait_v2 answers GPU_IS_LOST (nvml.h:
 *                     "if a GPU has fallen off the bus"), and from then on the XID board's UUID read
 *                     answers GPU_IS_LOST too
 *   FAKE_EARLY_TIMEOUTS   the first N waits answer TIMEOUT at once, as nvml.h documents for an
 *                     interrupt ("can return before specified timeout passes (e.g. when interrupt
 *                     arrives)"); every other TIMEOUT comes after the requested wait, as on a real host
 *   FAKE_CLOCK_REASONS_GPU1   board 1's nvmlDeviceGetCurrentClocksThrottleReasons bits (nvml.h
 *                     nvmlClocksEventReason*; default 0x1, GPU idle)
 *   FAKE_TEMPERATURE_GPU1     board 1's core temperature (°C; default 67)
 *   FAKE_NO_THROTTLE_SYMBOL   the deprecated nvmlDeviceGetCurrentClocksThrottleReasons is not
 *                             exported (nvmlDeviceGetCurrentClocksEventReasons still is)
 *   FAKE_NO_THRESHOLDS        nvmlDeviceGetTemperatureThreshold answers NOT_SUPPORTED (otherwise
 *                     slowdown 93 °C and shutdown 98 °C on both boards: scenario values)
 *   FAKE_POWER_MW_GPU1        board 1's power draw (mW; default 88000, the limit is 230000)
 *   FAKE_PCIE_GEN_GPU1, FAKE_PCIE_WIDTH_GPU1   board 1's current PCIe link (default Gen4 x16,
 *                     the maximum of both boards)
 *   FAKE_UTIL_GPU1            board 1's GPU utilization (%; default 0, idle)
 *   FAKE_REMAPPER_NONE_GPU1   board 1's row-remapper banks with no spare row left (default 0)
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FAKE_INIT_RESULT
#define FAKE_INIT_RESULT 0
#endif
#ifndef FAKE_DEVICE_COUNT
#define FAKE_DEVICE_COUNT 2
#endif
#ifndef FAKE_XID_DEVICE
#define FAKE_XID_DEVICE 1
#endif
#ifndef FAKE_ECC_DISABLED_DEVICE
#define FAKE_ECC_DISABLED_DEVICE -1
#endif
#ifndef FAKE_AGGREGATE_UNSUPPORTED_DEVICE
#define FAKE_AGGREGATE_UNSUPPORTED_DEVICE -1
#endif
#ifndef FAKE_EVENTS_UNSUPPORTED_DEVICE
#define FAKE_EVENTS_UNSUPPORTED_DEVICE -1
#endif
#ifndef FAKE_UUID_FAIL_ONCE_DEVICE
#define FAKE_UUID_FAIL_ONCE_DEVICE -1
#endif
#ifndef FAKE_HANDLE_ERROR_DEVICE
#define FAKE_HANDLE_ERROR_DEVICE -1
#endif
#ifndef FAKE_HANDLE_ERROR
#define FAKE_HANDLE_ERROR 0
#endif
#ifndef FAKE_EARLY_TIMEOUTS
#define FAKE_EARLY_TIMEOUTS 0
#endif
#ifndef FAKE_CLOCK_REASONS_GPU1
#define FAKE_CLOCK_REASONS_GPU1 0x1ULL
#endif
#ifndef FAKE_TEMPERATURE_GPU1
#define FAKE_TEMPERATURE_GPU1 67
#endif
#ifndef FAKE_POWER_MW_GPU1
#define FAKE_POWER_MW_GPU1 88000
#endif
#ifndef FAKE_PCIE_GEN_GPU1
#define FAKE_PCIE_GEN_GPU1 4
#endif
#ifndef FAKE_PCIE_WIDTH_GPU1
#define FAKE_PCIE_WIDTH_GPU1 16
#endif
#ifndef FAKE_UTIL_GPU1
#define FAKE_UTIL_GPU1 0
#endif
#ifndef FAKE_REMAPPER_NONE_GPU1
#define FAKE_REMAPPER_NONE_GPU1 0
#endif

typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_UNKNOWN 999

#define NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230
#define NVML_VALUE_TYPE_UNSIGNED_INT 1

#define NVML_EVENT_TYPE_XID_CRITICAL_ERROR 0x0000000000000008ULL

typedef struct fake_device {
    unsigned index;
    const char *name;
    const char *uuid;
    const char *bus_id;
    unsigned domain, bus, dev, pci_device_id, pci_subsystem_id;
    unsigned long long total, reserved, used;
    unsigned temperature_c;
    unsigned power_mw, power_limit_mw;
    unsigned util_gpu, util_mem;
    /* [error type: 0 corrected, 1 uncorrected][counter: 0 volatile, 1 aggregate] */
    unsigned long long ecc[2][2];
    unsigned remap_corr, remap_unc, remap_pending, remap_failure;
    unsigned nprocs;
    unsigned pids[2];
    unsigned long long proc_mem[2];
    unsigned long long clock_reasons;
    unsigned pcie_gen, pcie_max_gen, pcie_width, pcie_max_width;
    /* nvmlRowRemapperHistogramValues_t: max, high, partial, low, none */
    unsigned remapper[5];
} *nvmlDevice_t;

typedef struct {
    char busIdLegacy[16];
    unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct { unsigned version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned gpu, memory; } nvmlUtilization_t;
typedef struct { unsigned pid; unsigned long long usedGpuMemory; unsigned gpuInstanceId, computeInstanceId; } nvmlProcessInfo_t;
typedef struct { nvmlDevice_t device; unsigned long long eventType, eventData; unsigned gpuInstanceId, computeInstanceId; } nvmlEventData_t;
typedef union { double dVal; int siVal; unsigned uiVal; unsigned long ulVal; unsigned long long ullVal; long long sllVal; unsigned short usVal; } nvmlValue_t;
typedef struct { unsigned fieldId, scopeId; long long timestamp, latencyUsec; int valueType; nvmlReturn_t nvmlReturn; nvmlValue_t value; } nvmlFieldValue_t;

typedef struct fake_event_set {
    unsigned long long registered[FAKE_DEVICE_COUNT + 1];
    unsigned next;
} *nvmlEventSet_t;

#define GIB (1024ULL * 1024ULL * 1024ULL)
#define A5000_TOTAL (24564ULL * 1024ULL * 1024ULL)

static struct fake_device devices[2] = {
    {
        .index = 0, .name = "NVIDIA RTX A5000",
        .uuid = "GPU-3f8a2c1e-7b4d-4e9a-9c21-5d6e7f801a01",
        .bus_id = "00000000:01:00.0", .domain = 0, .bus = 1, .dev = 0,
        .pci_device_id = 0x223110DE, .pci_subsystem_id = 0x147E10DE,
        .total = A5000_TOTAL, .reserved = 300ULL * 1024 * 1024, .used = 2 * GIB,
        .temperature_c = 41, .power_mw = 61000, .power_limit_mw = 230000,
        .util_gpu = 12, .util_mem = 5,
        .ecc = {{0, 3}, {0, 0}},
        .remap_corr = 0, .remap_unc = 0, .remap_pending = 0, .remap_failure = 0,
        .nprocs = 1, .pids = {4242, 0}, .proc_mem = {2 * GIB - 512ULL * 1024 * 1024, 0},
        .clock_reasons = 0,
        .pcie_gen = 4, .pcie_max_gen = 4, .pcie_width = 16, .pcie_max_width = 16,
        .remapper = {64, 0, 0, 0, 0},
    },
    {
        .index = 1, .name = "NVIDIA RTX A5000",
        .uuid = "GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02",
        .bus_id = "00000000:41:00.0", .domain = 0, .bus = 0x41, .dev = 0,
        .pci_device_id = 0x223110DE, .pci_subsystem_id = 0x147E10DE,
        .total = A5000_TOTAL, .reserved = 300ULL * 1024 * 1024, .used = 512ULL * 1024 * 1024,
        .temperature_c = FAKE_TEMPERATURE_GPU1, .power_mw = FAKE_POWER_MW_GPU1, .power_limit_mw = 230000,
        .util_gpu = FAKE_UTIL_GPU1, .util_mem = 0,
        .ecc = {{0, 17}, {0, 1}},
        .remap_corr = 0, .remap_unc = 1, .remap_pending = 1, .remap_failure = 0,
        .nprocs = 0,
        .clock_reasons = FAKE_CLOCK_REASONS_GPU1,
        .pcie_gen = FAKE_PCIE_GEN_GPU1, .pcie_max_gen = 4,
        .pcie_width = FAKE_PCIE_WIDTH_GPU1, .pcie_max_width = 16,
        .remapper = {63 - FAKE_REMAPPER_NONE_GPU1, 1, 0, 0, FAKE_REMAPPER_NONE_GPU1},
    },
};

#ifdef FAKE_XIDS
static const unsigned long long fake_xids[] = {FAKE_XIDS};
#define FAKE_XID_COUNT (sizeof(fake_xids) / sizeof(fake_xids[0]))
#else
#define FAKE_XID_COUNT 0
#endif

static int initialized = 0;

static int valid(nvmlDevice_t d) {
    return initialized > 0 && FAKE_DEVICE_COUNT > 0 && (d == &devices[0] || (FAKE_DEVICE_COUNT > 1 && d == &devices[1]));
}

static nvmlReturn_t copy_str(const char *s, char *buf, unsigned len) {
    if (buf == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(s) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(buf, s);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void) {
#ifdef FAKE_INIT_HANG
    for (;;) pause();
#endif
    if (FAKE_INIT_RESULT != 0) return FAKE_INIT_RESULT;
    initialized++;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlInitWithFlags(unsigned flags) { (void)flags; return nvmlInit_v2(); }
nvmlReturn_t nvmlShutdown(void) {
    if (initialized == 0) return NVML_ERROR_UNINITIALIZED;
    initialized--;
    return NVML_SUCCESS;
}
const char *nvmlErrorString(nvmlReturn_t r) { (void)r; return "fake NVML error"; }

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned len) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    return copy_str("550.54.15", buf, len);
}
nvmlReturn_t nvmlSystemGetNVMLVersion(char *buf, unsigned len) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    return copy_str("12.550.54.15", buf, len);
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
    if (v == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *v = 12040;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return nvmlSystemGetCudaDriverVersion_v2(v); }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *count = FAKE_DEVICE_COUNT;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *device) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (device == NULL || index >= FAKE_DEVICE_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
    if ((int)index == FAKE_HANDLE_ERROR_DEVICE && FAKE_HANDLE_ERROR != 0) return FAKE_HANDLE_ERROR;
    *device = &devices[index];
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t d, unsigned *index) {
    if (!valid(d) || index == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *index = d->index;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned len) {
    if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
    return copy_str(d->name, buf, len);
}
static int uuid_failed_once = 0;
static int wait_lost = 0;
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned len) {
    if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
    if (wait_lost && (int)d->index == FAKE_XID_DEVICE) return NVML_ERROR_GPU_IS_LOST;
    if ((int)d->index == FAKE_UUID_FAIL_ONCE_DEVICE && !uuid_failed_once) {
        uuid_failed_once = 1;
        return NVML_ERROR_UNKNOWN;
    }
    return copy_str(d->uuid, buf, len);
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci) {
    if (!valid(d) || pci == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof(*pci));
    strncpy(pci->busIdLegacy, d->bus_id + 4, sizeof(pci->busIdLegacy) - 1);
    strncpy(pci->busId, d->bus_id, sizeof(pci->busId) - 1);
    pci->domain = d->domain;
    pci->bus = d->bus;
    pci->device = d->dev;
    pci->pciDeviceId = d->pci_device_id;
    pci->pciSubSystemId = d->pci_subsystem_id;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m) {
    if (!valid(d) || m == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    m->total = d->total;
    m->reserved = d->reserved;
    m->used = d->used;
    m->free = d->total - d->reserved - d->used;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    if (!valid(d) || m == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    m->total = d->total;
    m->used = d->used + d->reserved;
    m->free = d->total - m->used;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) {
    if (!valid(d) || u == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    u->gpu = d->util_gpu;
    u->memory = d->util_mem;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t) {
    if (!valid(d) || t == NULL || sensor != 0) return NVML_ERROR_INVALID_ARGUMENT;
    *t = d->temperature_c;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw) {
    if (!valid(d) || mw == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *mw = d->power_mw;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw) {
    if (!valid(d) || mw == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *mw = d->power_limit_mw;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int *current, int *pending) {
    if (!valid(d) || current == NULL || pending == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *current = (int)d->index == FAKE_ECC_DISABLED_DEVICE ? 0 : 1;
    *pending = *current;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int error_type, int counter_type, unsigned long long *count) {
    if (!valid(d) || count == NULL || error_type < 0 || error_type > 1 || counter_type < 0 || counter_type > 1)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (counter_type == 0 && (int)d->index == FAKE_ECC_DISABLED_DEVICE) return NVML_ERROR_NOT_SUPPORTED;
    if (counter_type == 1 && (int)d->index == FAKE_AGGREGATE_UNSUPPORTED_DEVICE) return NVML_ERROR_NOT_SUPPORTED;
    *count = d->ecc[error_type][counter_type];
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corr, unsigned *unc, unsigned *pending, unsigned *failure) {
    if (!valid(d) || corr == NULL || unc == NULL || pending == NULL || failure == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *corr = d->remap_corr;
    *unc = d->remap_unc;
    *pending = d->remap_pending;
    *failure = d->remap_failure;
    return NVML_SUCCESS;
}
/* nvml.h: nvmlDeviceGetCurrentClocksThrottleReasons is DEPRECATED(13.0), replaced by
 * nvmlDeviceGetCurrentClocksEventReasons (same bits); FAKE_NO_THROTTLE_SYMBOL leaves the old
 * symbol out, as a library that dropped it would. */
#ifndef FAKE_NO_THROTTLE_SYMBOL
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *reasons) {
    if (!valid(d) || reasons == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *reasons = d->clock_reasons;
    return NVML_SUCCESS;
}
#endif
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *reasons) {
    if (!valid(d) || reasons == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *reasons = d->clock_reasons;
    return NVML_SUCCESS;
}
/* nvmlTemperatureThresholds_t: 0 SHUTDOWN, 1 SLOWDOWN; the others are not offered here. */
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int type, unsigned *t) {
    if (!valid(d) || t == NULL) return NVML_ERROR_INVALID_ARGUMENT;
#ifdef FAKE_NO_THRESHOLDS
    return NVML_ERROR_NOT_SUPPORTED;
#endif
    if (type == 0) { *t = 98; return NVML_SUCCESS; }
    if (type == 1) { *t = 93; return NVML_SUCCESS; }
    return NVML_ERROR_NOT_SUPPORTED;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *v) {
    if (!valid(d) || v == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *v = d->pcie_gen;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned *v) {
    if (!valid(d) || v == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *v = d->pcie_max_gen;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned *v) {
    if (!valid(d) || v == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *v = d->pcie_width;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned *v) {
    if (!valid(d) || v == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *v = d->pcie_max_width;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t d, unsigned *values) {
    if (!valid(d) || values == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    memcpy(values, d->remapper, sizeof(d->remapper));
    return NVML_SUCCESS;
}

/* The RTX A5000 has no MIG: real NVML answers NOT_SUPPORTED. */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *current, unsigned *pending) {
    (void)current; (void)pending;
    if (!valid(d)) return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_ERROR_NOT_SUPPORTED;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *count, nvmlProcessInfo_t *infos) {
    if (!valid(d) || count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (d->nprocs == 0) { *count = 0; return NVML_SUCCESS; }
    if (infos == NULL || *count < d->nprocs) { *count = d->nprocs; return NVML_ERROR_INSUFFICIENT_SIZE; }
    for (unsigned i = 0; i < d->nprocs; i++) {
        infos[i].pid = d->pids[i];
        infos[i].usedGpuMemory = d->proc_mem[i];
        infos[i].gpuInstanceId = 0xFFFFFFFFu;
        infos[i].computeInstanceId = 0xFFFFFFFFu;
    }
    *count = d->nprocs;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long *types) {
    if (!valid(d) || types == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *types = NVML_EVENT_TYPE_XID_CRITICAL_ERROR;
#ifndef FAKE_EVENTS_MASK_CLAIMS
    if ((int)d->index == FAKE_EVENTS_UNSUPPORTED_DEVICE) *types = 0;
#endif
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (set == NULL) return NVML_ERROR_INVALID_ARGUMENT;
#ifdef FAKE_EVENT_SET_UNSUPPORTED
    return NVML_ERROR_NOT_SUPPORTED;
#endif
    *set = calloc(1, sizeof(struct fake_event_set));
    return *set == NULL ? 20 : NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) {
    if (!valid(d) || set == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if ((types & ~NVML_EVENT_TYPE_XID_CRITICAL_ERROR) != 0) return NVML_ERROR_NOT_SUPPORTED;
    if ((int)d->index == FAKE_EVENTS_UNSUPPORTED_DEVICE) return NVML_ERROR_NOT_SUPPORTED;
    set->registered[d->index] |= types;
    return NVML_SUCCESS;
}
static unsigned early_timeouts = 0;
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms) {
    if (set == NULL || data == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (early_timeouts < FAKE_EARLY_TIMEOUTS) {
        early_timeouts++;
        return NVML_ERROR_TIMEOUT;
    }
#ifdef FAKE_XIDS
    if (FAKE_XID_DEVICE < FAKE_DEVICE_COUNT && set->next < FAKE_XID_COUNT &&
        (set->registered[FAKE_XID_DEVICE] & NVML_EVENT_TYPE_XID_CRITICAL_ERROR)) {
        memset(data, 0, sizeof(*data));
        data->device = &devices[FAKE_XID_DEVICE];
        data->eventType = NVML_EVENT_TYPE_XID_CRITICAL_ERROR;
        data->eventData = fake_xids[set->next++];
        return NVML_SUCCESS;
    }
#endif
#ifdef FAKE_WAIT_LOST
    wait_lost = 1;
    return NVML_ERROR_GPU_IS_LOST;
#endif
    /* A real wait: nothing arrives within timeout_ms (capped so a test cannot hang on it). */
    usleep((timeout_ms < 2000 ? timeout_ms : 2000) * 1000);
    return NVML_ERROR_TIMEOUT;
}
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
    free(set);
    return NVML_SUCCESS;
}

/* Field values: only NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, and only when FAKE_RECOVERY_ACTION is set.
 * Per nvml.h, each value carries its own nvmlReturn; the call itself succeeds. */
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int count, nvmlFieldValue_t *values) {
    if (!valid(d) || values == NULL || count < 0) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < count; i++) {
        values[i].timestamp = 0;
        values[i].latencyUsec = 0;
#ifdef FAKE_RECOVERY_ACTION
        if (values[i].fieldId == NVML_FI_DEV_GET_GPU_RECOVERY_ACTION) {
            values[i].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
            values[i].value.uiVal = FAKE_RECOVERY_ACTION;
            values[i].nvmlReturn = NVML_SUCCESS;
            continue;
        }
#endif
        values[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
    return NVML_SUCCESS;
}
