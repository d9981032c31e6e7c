/* kiln's plugin C API: how a host reaches a device, the way PJRT does it (DESIGN §4).
 *
 * A plugin is a shared library (libkiln_plugin_<name>.so) exporting one function,
 * kiln_plugin_api(), which returns a versioned table of function pointers. Every function
 * takes one args struct whose first field is its own size (set it to sizeof the struct
 * you compiled against: a plugin reads only the fields that fit in it, and treats the
 * ones beyond it as zero, so older hosts keep working with newer plugins), and returns
 * NULL on success or an error object (code + message) that the caller destroys with
 * error_destroy. No C++ exception ever crosses this ABI; null args, a struct_size of 0
 * and null handles are error objects too. Handles are opaque.
 *
 * Work that completes later (host-to-device copies, copies back, executions) returns an
 * event: poll it, await it, or give it a callback. A failure inside asynchronous work
 * reaches the caller through the event, and through the events of everything that
 * depended on it.
 *
 * Plain C11: this header compiles as C (tests/runtime/plugin_header_test.c). */
#ifndef KILN_PLUGIN_H_
#define KILN_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A host refuses a plugin whose major version differs from its own; minor versions
 * only add fields at the end of structs and functions at the end of the table. */
#define KILN_PLUGIN_API_MAJOR 0
#define KILN_PLUGIN_API_MINOR 8

typedef struct KilnError KilnError;
typedef struct KilnClient KilnClient;
typedef struct KilnDevice KilnDevice;
typedef struct KilnMemory KilnMemory;
typedef struct KilnBuffer KilnBuffer;
typedef struct KilnExecutable KilnExecutable;
typedef struct KilnEvent KilnEvent;

typedef enum KilnErrorCode {
  KILN_ERROR_INVALID_ARGUMENT = 1, /* bad input: malformed program text, wrong shapes, null handles */
  KILN_ERROR_UNIMPLEMENTED = 2,    /* valid, but not supported (yet); the message says what */
  KILN_ERROR_FAILED_PRECONDITION = 3, /* a deleted buffer, a destroyed client */
  KILN_ERROR_RESOURCE_EXHAUSTED = 4,  /* the client's memory limit, or out of memory */
  KILN_ERROR_IO = 5,               /* files, and serialized executables that are damaged */
  KILN_ERROR_RUNTIME = 6,          /* a failure while running a program */
  KILN_ERROR_INTERNAL = 7,         /* a bug in the plugin */
  KILN_ERROR_UNKNOWN = 8,
  KILN_ERROR_CANCELLED = 9         /* since 0.4: the work was cancelled (execution_cancel) */
} KilnErrorCode;

/* Element types; the bytes of a buffer are its elements in row-major order, each in the
 * dtype's size (PRED: one byte, 0 or 1), little-endian. */
typedef enum KilnDType {
  KILN_DTYPE_INVALID = 0,
  KILN_DTYPE_PRED = 1, /* i1 */
  KILN_DTYPE_S8 = 2,
  KILN_DTYPE_S16 = 3,
  KILN_DTYPE_S32 = 4,
  KILN_DTYPE_S64 = 5,
  KILN_DTYPE_U8 = 6,
  KILN_DTYPE_U16 = 7,
  KILN_DTYPE_U32 = 8,
  KILN_DTYPE_U64 = 9,
  KILN_DTYPE_F16 = 10,
  KILN_DTYPE_BF16 = 11,
  KILN_DTYPE_F32 = 12,
  KILN_DTYPE_F64 = 13,
  KILN_DTYPE_C64 = 14,
  KILN_DTYPE_C128 = 15,
  /* since 0.4: a token (it orders side effects, and holds nothing): a buffer of it has no
   * dims and 0 bytes (buffer_from_host ignores its data). Programs pass tokens to and
   * from send, recv, after_all... */
  KILN_DTYPE_TOKEN = 16
} KilnDType;

/* ---- errors ---- */

/* A NULL error is nothing to destroy (like free(NULL)). */
typedef struct KilnErrorDestroyArgs {
  size_t struct_size;
  KilnError* error;
} KilnErrorDestroyArgs;

typedef struct KilnErrorInfoArgs {
  size_t struct_size;
  const KilnError* error;
  KilnErrorCode code;  /* out */
  const char* message; /* out: valid until the error is destroyed; NUL-terminated */
  size_t message_size; /* out: without the NUL */
} KilnErrorInfoArgs;

/* ---- the plugin ---- */

/* Optional capabilities: a plugin lists the ones it implements (plugin_attributes), and
 * answers a call that needs one it lacks with a KILN_ERROR_UNIMPLEMENTED error object.
 * A host also checks the table's struct_size before calling a function newer than the
 * plugin (the C++ wrapper does). */
#define KILN_CAPABILITY_MULTI_DEVICE "multi_device"   /* replicas x partitions > 1, collectives */
#define KILN_CAPABILITY_SERIALIZE "serialize"         /* executable_serialize / _deserialize */
#define KILN_CAPABILITY_DONATION "donation"           /* KilnExecuteArgs.donated_args */
#define KILN_CAPABILITY_CANCELLATION "cancellation"   /* execution_cancel */
#define KILN_CAPABILITY_COST_ANALYSIS "cost_analysis" /* executable_info's flops, bytes, memory */
#define KILN_CAPABILITY_MEMORY_STATS "memory_stats"   /* device_memory_stats */
#define KILN_CAPABILITY_MPMD "mpmd" /* processes that run different functions (process_entries) */
#define KILN_CAPABILITY_MPI "mpi"   /* since 0.6: the client option communicator=mpi */
#define KILN_CAPABILITY_TEXT "text" /* since 0.7: executable_text */
#define KILN_CAPABILITY_PROFILE "profile" /* since 0.7: the compile option "profile" */
#define KILN_CAPABILITY_FEEDS "feeds"     /* since 0.8: device_infeed, device_outfeed */

typedef struct KilnPluginAttributesArgs {
  size_t struct_size;
  const char* name;     /* out: "cpu", "interp" (static storage) */
  const char* version;  /* out: the plugin's own version, "0.1.0" (static storage) */
  /* since 0.4 */
  const char* const* capabilities; /* out: the KILN_CAPABILITY_* it implements (static storage) */
  size_t num_capabilities;         /* out */
} KilnPluginAttributesArgs;

/* ---- clients and devices ---- */

/* Since 0.5: an option a plugin defines by name, its value as text (client_create's and
 * compile's options list those kiln's plugins know). */
typedef struct KilnNamedOption {
  const char* name;
  const char* value;
} KilnNamedOption;

typedef struct KilnClientCreateArgs {
  size_t struct_size;
  int32_t num_devices;        /* 0: the plugin's default (cpu: $KILN_CPU_DEVICES, else 1) */
  int64_t memory_limit_bytes; /* per device; 0: no limit */
  KilnClient* client;         /* out */
  /* since 0.6: [num_options] options by name (an unknown name is an INVALID_ARGUMENT
   * error that lists those the plugin knows). kiln's plugins know:
   *   "communicator"          "in_process" (the default): the client's devices live in
   *                           this process and exchange through its memory; "mpi"
   *                           (capability "mpi"): this process is one rank of an MPI job
   *                           (mpirun -np N) and has one device, global id and
   *                           process_index = its rank; an executable of N processes runs
   *                           with one process on each rank (each rank executes it on its
   *                           own device) and its collectives travel as MPI messages
   *   "collective_timeout_s"  with "mpi": how long a collective waits for ranks that do
   *                           not arrive before it ends the job with MPI_Abort, naming
   *                           the collective and those ranks (decimal seconds; default 300)
   *   "inline_execution"      "small" (the default): execute runs a small program (under
   *                           1000 flops, small arrays, no loops, exchanges or side
   *                           effects) on the caller's thread when its one device is
   *                           idle and its arguments are ready, and returns with its
   *                           outputs ready (as XLA's CPU client does: the hand-off to
   *                           the device's thread would cost more than the program);
   *                           "never": every execution runs on its device's thread
   *   "infeed_when_empty"     (since 0.8, capability "feeds") "fail" (the default): a
   *                           program whose infeed op finds the device's infeed empty
   *                           fails at once (RUNTIME), so that a host that never feeds
   *                           (or queues every value before the run) never waits; "wait":
   *                           it waits for the host to queue a value (a host that feeds
   *                           while its programs run) */
  const KilnNamedOption* options;
  size_t num_options;
} KilnClientCreateArgs;

/* Waits for the work queued on the client's devices, then frees it. Buffers and
 * executables must be destroyed before their client. */
typedef struct KilnClientDestroyArgs {
  size_t struct_size;
  KilnClient* client;
} KilnClientDestroyArgs;

typedef struct KilnClientDevicesArgs {
  size_t struct_size;
  KilnClient* client;
  KilnDevice* const* devices; /* out: owned by the client; the devices this process addresses */
  size_t num_devices;         /* out */
  /* since 0.6 */
  size_t num_all_devices;     /* out: the devices of all the client's processes (mpi: the ranks') */
} KilnClientDevicesArgs;

typedef struct KilnDeviceInfoArgs {
  size_t struct_size;
  KilnDevice* device;
  int32_t global_id;         /* out */
  int32_t process_index;     /* out */
  const char* kind;          /* out: "cpu", "interp" (valid while the client lives) */
  const char* description;   /* out: human-readable (valid while the client lives) */
  int64_t memory_size_bytes; /* out: the memory limit, or the host's memory without one */
  KilnMemory* memory;        /* out: the device's memory (owned by the client) */
} KilnDeviceInfoArgs;

typedef struct KilnMemoryInfoArgs {
  size_t struct_size;
  KilnMemory* memory;
  const char* kind;    /* out: "host" for the cpu and interp plugins */
  int64_t size_bytes;  /* out */
  KilnDevice* device;  /* out: the device it belongs to */
} KilnMemoryInfoArgs;

typedef struct KilnDeviceMemoryStatsArgs {
  size_t struct_size;
  KilnDevice* device;
  int64_t bytes_in_use;      /* out */
  int64_t peak_bytes_in_use; /* out: since the client was created */
  int64_t num_buffers;       /* out: live buffers on the device */
  int64_t bytes_limit;       /* out: 0 when there is none */
} KilnDeviceMemoryStatsArgs;

/* Since 0.8 (capability "feeds"): a device's infeed and outfeed queues, as XLA's
 * TransferToInfeed and TransferFromOutfeed. The infeed ops of the programs a device runs
 * take their values from its infeed queue, one value per result (not the token), in the
 * order the host queued them. One that finds the queue empty fails the execution, or,
 * with the client option infeed_when_empty=wait, waits (until the value comes, the
 * execution is cancelled or runs past its time limit, or the client is destroyed; the
 * device runs nothing else meanwhile, copies to it included). A value of another type
 * than the result's fails the execution (RUNTIME, naming both types); the values an op
 * took before it failed are gone. The outfeed ops of its programs append their operands'
 * values (not the token) to its outfeed queue and never wait; the host takes them in that
 * order with device_outfeed. Values nobody takes stay queued for the client's life (they
 * are not counted in device_memory_stats). */

/* Queues a value for the device's infeed. The host memory is copied before the call
 * returns. */
typedef struct KilnDeviceInfeedArgs {
  size_t struct_size;
  KilnDevice* device;
  KilnDType dtype; /* a tensor's (not KILN_DTYPE_TOKEN) */
  const int64_t* dims;
  size_t num_dims;
  const void* data; /* the elements (see KilnDType); NULL only when there are none */
} KilnDeviceInfeedArgs;

/* Asks for the next value the device's programs outfeed (requests are served in the
 * order they are made), without waiting: `event` becomes ready once it is copied to
 * `dst`, which must stay valid until then (even when the event is destroyed first). A
 * request whose dtype and dims are not the next value's has its event fail
 * (INVALID_ARGUMENT, naming the value's type) and leaves the value for the next request;
 * one not served once the work queued before the client's destruction is done fails
 * (CANCELLED). */
typedef struct KilnDeviceOutfeedArgs {
  size_t struct_size;
  KilnDevice* device;
  KilnDType dtype;
  const int64_t* dims;
  size_t num_dims;
  void* dst;
  size_t dst_size;  /* bytes: the elements of dims x dtype */
  KilnEvent* event; /* out: destroy it with event_destroy */
} KilnDeviceOutfeedArgs;

/* ---- buffers ---- */

/* Copies `dims` x dtype elements from host memory to `device`, asynchronously: the host
 * memory must stay as it is until `done_with_host` is ready. */
typedef struct KilnBufferFromHostArgs {
  size_t struct_size;
  KilnClient* client;
  KilnDevice* device;
  KilnDType dtype;
  const int64_t* dims;
  size_t num_dims;
  const void* data;
  KilnBuffer* buffer;         /* out */
  KilnEvent* done_with_host;  /* out: destroy it with event_destroy */
} KilnBufferFromHostArgs;

/* Copies a buffer's elements to host memory (dst_size must be the buffer's size), once
 * the buffer is ready; `event` says when they are there. */
typedef struct KilnBufferToHostArgs {
  size_t struct_size;
  KilnBuffer* buffer;
  void* dst;
  size_t dst_size;
  KilnEvent* event; /* out */
} KilnBufferToHostArgs;

typedef struct KilnBufferInfoArgs {
  size_t struct_size;
  KilnBuffer* buffer;
  KilnDType dtype;            /* out */
  const int64_t* dims;        /* out: valid while the buffer lives */
  size_t num_dims;            /* out */
  int64_t on_device_size;     /* out: bytes */
  KilnDevice* device;         /* out */
} KilnBufferInfoArgs;

/* An event that becomes ready when the buffer's contents are there (or failed). */
typedef struct KilnBufferReadyEventArgs {
  size_t struct_size;
  KilnBuffer* buffer;
  KilnEvent* event; /* out */
} KilnBufferReadyEventArgs;

/* Deletes the buffer: any later use of the handle is a FAILED_PRECONDITION error (the
 * handle stays valid until destroyed); its device memory is freed now, or, as PJRT's
 * Delete does, once the executions and copies already queued that read it have read it
 * (since 0.5; before, such a read failed). A buffer donated to an execution belongs to
 * it: deleting it does nothing. */
typedef struct KilnBufferDeleteArgs {
  size_t struct_size;
  KilnBuffer* buffer;
} KilnBufferDeleteArgs;

/* Frees the handle. The device memory is freed once no queued execution or copy uses
 * the buffer either (at once when none does). */
typedef struct KilnBufferDestroyArgs {
  size_t struct_size;
  KilnBuffer* buffer;
} KilnBufferDestroyArgs;

typedef struct KilnBufferCopyToDeviceArgs {
  size_t struct_size;
  KilnBuffer* buffer;
  KilnDevice* dst_device;
  KilnBuffer* dst_buffer; /* out: ready once copied (see buffer_ready_event) */
} KilnBufferCopyToDeviceArgs;

/* ---- compiling ---- */

typedef enum KilnOptimization {
  KILN_OPTIMIZATION_DEFAULT = 0, /* the plugin's choice (cpu: full) */
  KILN_OPTIMIZATION_FAST = 1,    /* compile fast, run slower (cpu: no LLVM optimization) */
  KILN_OPTIMIZATION_FULL = 2,
  KILN_OPTIMIZATION_TIERED = 3   /* since 0.5: run fast code at once, optimized code once
                                    ready (cpu: FAST, then FULL in the background) */
} KilnOptimization;

/* Compile options (KilnCompileArgs.options) kiln's cpu and interp plugins know:
 *   "fill_elided_seed"  decimal: constants an exporter left out (dense_resource<__elided__>)
 *                       are filled with values drawn from this seed before compiling
 *   "memory_limit"      decimal bytes: a program whose buffers (parameters, results,
 *                       temporaries) need more at their peak is refused when it compiles
 *                       or deserializes (RESOURCE_EXHAUSTED, naming its largest buffers),
 *                       rather than failing when it runs
 *   "probe_dir"         the folder interpreter.probe writes to (and
 *                       check.expect_serialized_eq reads from); not serialized
 * and, since 0.7:
 *   "profile"           "1" (capability "profile"; the cpu plugin): every run of the
 *                       executable records its steps (runs on several devices side by
 *                       side);
 *                       executable_text's "profile" and "profile_summary" return them;
 *                       not serialized
 *   "kernel_cache_dir"  (cpu) a folder that keeps the machine code of kernels across
 *                       processes, so that a program sharing kernels with one compiled
 *                       before compiles only its new ones; not serialized */
/* Compiles StableHLO text (one module; its entry is @main, or its only public function)
 * for the client's devices. Errors in the text come back with their position. */
typedef struct KilnCompileArgs {
  size_t struct_size;
  KilnClient* client;
  const char* code; /* StableHLO MLIR text (generic or pretty form) */
  size_t code_size;
  const char* name; /* what error messages call the text; NULL: "<program>" */
  KilnOptimization optimization;
  const char* dump_dir; /* NULL or "": no dump (cpu: the kernels' LLVM IR and assembly) */
  int32_t num_replicas;   /* 0: 1. The program runs as replicas x partitions processes, */
  int32_t num_partitions; /* 0: 1. one per device; its collectives exchange between them */
  KilnExecutable* executable; /* out */
  /* since 0.2 */
  const char* entry; /* the function to run; NULL or "": @main, else the only public one */
  /* [num_replicas * num_partitions] device ids: the device of process (r, p) at
   * r * num_partitions + p. NULL: execute chooses the devices (any distinct ones). */
  const int32_t* device_assignment;
  /* since 0.4 (capability "mpmd"): the function each process runs, [num_replicas *
   * num_partitions] names in the order of device_assignment (`entry` is then ignored):
   * processes that exchange values with send/recv while running different code. NULL:
   * every process runs `entry`. */
  const char* const* process_entries;
  size_t num_process_entries;
  /* since 0.5: [num_options] options by name. A name the plugin does not know is an
   * INVALID_ARGUMENT error that lists those it does. */
  const KilnNamedOption* options;
  size_t num_options;
} KilnCompileArgs;

typedef struct KilnExecutableDestroyArgs {
  size_t struct_size;
  KilnExecutable* executable;
} KilnExecutableDestroyArgs;

typedef struct KilnExecutableInfoArgs {
  size_t struct_size;
  KilnExecutable* executable;
  const char* name;      /* out: the entry function (valid while the executable lives) */
  size_t num_parameters; /* out */
  size_t num_results;    /* out */
  double flops;          /* out: cost analysis of the entry function */
  double bytes_accessed; /* out: its parameters read once and results written once */
  int64_t temp_bytes;    /* out: memory analysis: the arena of temporaries and outputs */
  int64_t peak_live_bytes; /* out: the most bytes live at once while it runs */
  /* since 0.2 */
  int32_t num_replicas;   /* out */
  int32_t num_partitions; /* out */
  /* since 0.4 (in): the process whose function the fields above describe (name,
   * parameters, results, costs); they differ between processes only with process_entries */
  size_t process;
} KilnExecutableInfoArgs;

/* The type of one parameter or result. */
typedef struct KilnExecutableValueTypeArgs {
  size_t struct_size;
  KilnExecutable* executable;
  int32_t is_result; /* 0: parameter `index`; 1: result `index` */
  size_t index;
  KilnDType dtype;     /* out */
  const int64_t* dims; /* out: valid while the executable lives */
  size_t num_dims;     /* out */
  size_t process;      /* since 0.4 (in): of the function process `process` runs */
} KilnExecutableValueTypeArgs;

/* Bytes that executable_deserialize turns back into an executable of the same plugin
 * (and, for cpu, the same build of kiln on the same CPU) without compiling. */
typedef struct KilnExecutableSerializeArgs {
  size_t struct_size;
  KilnExecutable* executable;
  const char* bytes; /* out: valid until the next serialize of it, or its destroy */
  size_t num_bytes;  /* out */
} KilnExecutableSerializeArgs;

typedef struct KilnExecutableDeserializeArgs {
  size_t struct_size;
  KilnClient* client;
  const char* bytes;
  size_t num_bytes;
  KilnExecutable* executable; /* out */
  /* since 0.8: the text the executable was compiled from and the name it was compiled
   * under, when the host has them (NULL: none; the plugin copies them). Runtime errors of
   * the executable then show the line they point at, as those of a compiled one do (the
   * cpu plugin's serialized form keeps positions, not the text). */
  const char* source_name;
  const char* source;
  size_t source_size;
} KilnExecutableDeserializeArgs;

/* Since 0.5: the same compiled module entered at another of its functions, as a new
 * executable (destroyed on its own; it keeps what it shares alive): a module compiled
 * once and run at several entry points, such as a test file's tests or a library's
 * functions. Not for an executable whose processes run different functions. */
typedef struct KilnExecutableWithEntryArgs {
  size_t struct_size;
  KilnExecutable* executable;
  const char* entry;
  KilnExecutable* entry_executable; /* out */
} KilnExecutableWithEntryArgs;

/* Since 0.5: what the plugin can say about how it compiled an executable and how the
 * module's code has run so far, as named numbers (PJRT's named values); names and
 * meanings are the plugin's own. kiln's cpu plugin reports "native_kernels",
 * "blas_ops", "compile_seconds", "kernel_runs", "interpreted_ops" (ops left to its
 * interpreter), "interpreted_functions" (functions that run through the interpreter
 * because of them) and, per reason an op was left there, "interpreted: <reason>"; the interp
 * plugin none. */
typedef struct KilnNamedValue {
  const char* name;
  double value;
} KilnNamedValue;

typedef struct KilnExecutableStatisticsArgs {
  size_t struct_size;
  KilnExecutable* executable;
  const KilnNamedValue* values; /* out: valid until the next call for this executable or its destruction */
  size_t num_values;            /* out */
} KilnExecutableStatisticsArgs;

/* Since 0.7 (capability "text"): a text about an executable, by name; the names are the
 * plugin's own. kiln's plugins know:
 *   "program"          the module as the executable runs it (cpu: after its pipeline)
 *   "report"           (cpu) what `kiln compile --backend cpu --report` prints: the
 *                      pipeline's passes and figures, then each kernel and each op left
 *                      to the interpreter, with its op and line
 *   "fallbacks"        (cpu) one line per function that runs through the interpreter:
 *                      the op that sends it there, its source line, and why (empty when
 *                      everything runs natively)
 *   "profile"          (compiled with the option "profile") the runs so far as a Chrome
 *                      trace-event file: a slice per step and per kernel chunk
 *   "profile_summary"  (the same) the steps that took longest, with their share of the
 *                      runs, and the work per run
 * An unknown name is an INVALID_ARGUMENT error that lists those the plugin knows. */
typedef struct KilnExecutableTextArgs {
  size_t struct_size;
  KilnExecutable* executable;
  const char* name;
  const char* text; /* out: valid until the next executable_text for this executable or its
                       destruction (so not to be called for one executable from two threads at once) */
  size_t text_size; /* out */
} KilnExecutableTextArgs;

/* Runs an executable, without waiting for it (a small program on an idle device may
 * have run when it returns: the client option "inline_execution"): one argument list per device it runs on,
 * replicas x partitions of them; devices[d] runs process (d / num_partitions,
 * d % num_partitions). Arguments may still be in flight (the execution waits for them).
 * The caller provides output_lists[d], an array of num_results buffer handles per
 * device, and complete_events (num_devices events), which the call fills. The processes
 * of one execution start together once all their arguments are ready; a process that
 * fails fails those that wait for it in a collective. */
typedef struct KilnExecuteArgs {
  size_t struct_size;
  KilnExecutable* executable;
  size_t num_devices;
  KilnDevice* const* devices; /* NULL: the compile's device assignment, else the client's
                                 first num_devices devices */
  KilnBuffer* const* const* argument_lists; /* [num_devices][num_args] */
  size_t num_args;
  KilnBuffer** const* output_lists; /* [num_devices][num_results], filled */
  KilnEvent** complete_events;      /* [num_devices], filled; NULL: none wanted */
  const char* label; /* since 0.3; NULL: none. What a failure of this execution's own run
                        is prefixed with ("file.cc:12:5", the caller's source position),
                        so that the executions that read its outputs name where it came from */
  /* since 0.4 (capability "donation"): argument indices whose buffers, on every device,
   * the execution takes over. From the call on, using a donated buffer's handle is a
   * FAILED_PRECONDITION error ("donated"); only destroying it remains. An output of the
   * same type as a donated argument takes over its device memory (the first unmatched
   * output of that type, in order), so a step that replaces its state needs no memory
   * for a second copy of it; reads queued before the donation still read the value. */
  const size_t* donated_args;
  size_t num_donated_args;
  /* since 0.4: [num_devices] argument counts, for an executable whose processes run
   * functions with different parameters (process_entries; output_lists[d] then holds the
   * results of device d's function). NULL: num_args on every device. */
  const size_t* num_args_per_device;
  /* since 0.5: once the execution has run this long after the call (nanoseconds), it
   * stops at its next loop iteration or collective and fails with a RUNTIME error
   * ("time limit exceeded", with the position of the op it stopped in). 0: no limit. */
  int64_t time_limit_ns;
  /* since 0.7: where the program's prints (interpreter.print) go; NULL: the plugin's
   * standard output. Called on the threads that run the execution, one print at a time,
   * with `print_user`; print_release(print_user) (when not NULL) once the execution will
   * print no more. When execute returns an error, neither is ever called. */
  void (*print)(void* user, const char* text, size_t size);
  void* print_user;
  void (*print_release)(void* user);
} KilnExecuteArgs;

/* Since 0.4 (capability "cancellation"): asks the execution that `complete_event` (from
 * execute) belongs to to stop, on every device it runs on. One that has not started
 * (queued, or waiting for its arguments) fails at once and never runs; one running stops
 * at its next loop iteration or collective (straight-line kernels run to their end). Its
 * outputs and events then fail with KILN_ERROR_CANCELLED.
 * An execution already complete is unaffected; cancelling twice is harmless. */
typedef struct KilnExecutionCancelArgs {
  size_t struct_size;
  KilnEvent* complete_event;
} KilnExecutionCancelArgs;

/* ---- events ---- */

typedef struct KilnEventDestroyArgs {
  size_t struct_size;
  KilnEvent* event;
} KilnEventDestroyArgs;

typedef struct KilnEventIsReadyArgs {
  size_t struct_size;
  KilnEvent* event;
  int32_t is_ready; /* out: 1 when complete (successfully or not) */
} KilnEventIsReadyArgs;

/* Blocks until the event is ready; returns the error of the work it stands for. */
typedef struct KilnEventAwaitArgs {
  size_t struct_size;
  KilnEvent* event;
} KilnEventAwaitArgs;

/* Called once, when the event is ready (at once, on this thread, when it already is),
 * with the work's error (NULL on success; the callback owns it and destroys it). */
typedef void (*KilnEventCallback)(KilnError* error, void* user_arg);

typedef struct KilnEventOnReadyArgs {
  size_t struct_size;
  KilnEvent* event;
  KilnEventCallback callback;
  void* user_arg;
} KilnEventOnReadyArgs;

/* ---- the table ---- */

typedef struct KilnPluginApi {
  size_t struct_size;
  int32_t major_version; /* KILN_PLUGIN_API_MAJOR of the plugin's build */
  int32_t minor_version;

  KilnError* (*error_destroy)(KilnErrorDestroyArgs* args);
  KilnError* (*error_info)(KilnErrorInfoArgs* args);

  KilnError* (*plugin_attributes)(KilnPluginAttributesArgs* args);

  KilnError* (*client_create)(KilnClientCreateArgs* args);
  KilnError* (*client_destroy)(KilnClientDestroyArgs* args);
  KilnError* (*client_devices)(KilnClientDevicesArgs* args);
  KilnError* (*device_info)(KilnDeviceInfoArgs* args);
  KilnError* (*memory_info)(KilnMemoryInfoArgs* args);
  KilnError* (*device_memory_stats)(KilnDeviceMemoryStatsArgs* args);

  KilnError* (*buffer_from_host)(KilnBufferFromHostArgs* args);
  KilnError* (*buffer_to_host)(KilnBufferToHostArgs* args);
  KilnError* (*buffer_info)(KilnBufferInfoArgs* args);
  KilnError* (*buffer_ready_event)(KilnBufferReadyEventArgs* args);
  KilnError* (*buffer_delete)(KilnBufferDeleteArgs* args);
  KilnError* (*buffer_destroy)(KilnBufferDestroyArgs* args);
  KilnError* (*buffer_copy_to_device)(KilnBufferCopyToDeviceArgs* args);

  KilnError* (*compile)(KilnCompileArgs* args);
  KilnError* (*executable_destroy)(KilnExecutableDestroyArgs* args);
  KilnError* (*executable_info)(KilnExecutableInfoArgs* args);
  KilnError* (*executable_value_type)(KilnExecutableValueTypeArgs* args);
  KilnError* (*executable_serialize)(KilnExecutableSerializeArgs* args);
  KilnError* (*executable_deserialize)(KilnExecutableDeserializeArgs* args);
  KilnError* (*execute)(KilnExecuteArgs* args);

  KilnError* (*event_destroy)(KilnEventDestroyArgs* args);
  KilnError* (*event_is_ready)(KilnEventIsReadyArgs* args);
  KilnError* (*event_await)(KilnEventAwaitArgs* args);
  KilnError* (*event_on_ready)(KilnEventOnReadyArgs* args);

  /* since 0.4 */
  KilnError* (*execution_cancel)(KilnExecutionCancelArgs* args);

  /* since 0.5 */
  KilnError* (*executable_with_entry)(KilnExecutableWithEntryArgs* args);
  KilnError* (*executable_statistics)(KilnExecutableStatisticsArgs* args);

  /* since 0.7 */
  KilnError* (*executable_text)(KilnExecutableTextArgs* args);

  /* since 0.8 */
  KilnError* (*device_infeed)(KilnDeviceInfeedArgs* args);
  KilnError* (*device_outfeed)(KilnDeviceOutfeedArgs* args);
} KilnPluginApi;

/* The one symbol a plugin exports: its table, in static storage. */
const KilnPluginApi* kiln_plugin_api(void);
typedef const KilnPluginApi* (*KilnPluginApiFn)(void);
#define KILN_PLUGIN_ENTRY_POINT "kiln_plugin_api"

#ifdef __cplusplus
}
#endif

#endif /* KILN_PLUGIN_H_ */
