// Module: base of every neuron, layer, source and container, after torch.nn.Module and
// Rockpool's Module.
//
// Owns: its attribute registry (specs + values), its named children (insertion order), forward
// hooks, train/eval flag and elapsed-step counter. Invariants: every registered attribute holds a
// value that passed its spec's validation; attribute changes go through validate-then-commit so
// a rejected change leaves every module as it was; children's names are unique and contain no
// '.'. Thread: a module tree is owned by one thread at a time (the GUI's before a run, the
// simulation worker's during one); nothing here locks.
#pragma once

#include "engine/core/attribute.hpp"
#include "engine/tensor/error.hpp"
#include "engine/core/recording.hpp"
#include "engine/tensor/tensor.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace spike::engine {

class Module;

/// Ordered (key, tensor) pairs with PyTorch key names ("layer.0.weight").
using StateDict = std::vector<std::pair<std::string, Tensor>>;

/// Outcome of Module::loadStateDict.
struct LoadStateDictResult {
    Status status;                            ///< failure: nothing was changed
    std::vector<std::string> missingKeys;     ///< expected by the model, absent from the dict
    std::vector<std::string> unexpectedKeys;  ///< present in the dict, unknown to the model
};

/// Called before a module's forward evolution with its (B, T, Nin) input; may return a
/// replacement input. Called on the thread that evolves the module.
using ForwardPreHook = std::function<std::optional<Tensor>(Module&, const Tensor& input)>;
/// Called after a module's forward evolution with input and (B, T, Nout) output; may return a
/// replacement output. Called on the thread that evolves the module.
using ForwardHook =
    std::function<std::optional<Tensor>(Module&, const Tensor& input, const Tensor& output)>;

struct HookTable;

/// Handle returned when registering a hook; remove() unregisters it (idempotent, and safe after
/// the module is gone).
class HookHandle {
public:
    HookHandle() = default;
    HookHandle(std::weak_ptr<HookTable> table, int id) : m_table(std::move(table)), m_id(id) {}
    void remove();
    /// True while the hook is registered on a living module.
    bool active() const;

private:
    std::weak_ptr<HookTable> m_table;
    int m_id = -1;
};

/// Result of evolve(): output, the new state of every module, and recorded series.
struct EvolveResult {
    Tensor output;           ///< (T, Nout) or (B, T, Nout), following the input's layout
    NestedAttributes state;  ///< state() of the evolved tree after the run
    Recording record;        ///< empty unless recording was requested
};

/// One named slice of a module's flat input or output vector. Every module has a flat input of
/// sizeIn() channels and a flat output of sizeOut() channels; ports split them into contiguous
/// named ranges so networks can wire them (a CUBA neuron's "exc" and "inh" inputs).
struct PortSpec {
    std::string name;          ///< "in", "out", "spikes", "exc", ...
    std::int64_t offset = 0;   ///< first channel of the slice
    std::int64_t size = 0;     ///< channels in the slice
    bool spiking = false;      ///< carries spike counts rather than currents
};

class DeviceNeuron;
class NodeRunner;

/// Read-only view of one registered attribute.
struct AttributeView {
    const AttributeSpec* spec = nullptr;
    const AttributeValue* value = nullptr;
    bool derived = false;  ///< readable, but computed from other attributes in the current mode
};

/// One named summary number a module computes from its attributes (a weight statistic), shown
/// by viewers next to the attributes; recomputed on every call.
struct ModuleStatistic {
    std::string name;         ///< "dynamic_mean"
    std::string description;  ///< one line: what it summarises
    double value = 0.0;
};

/// One arrow of a container's forward computation between two of its children (names as in
/// getSubmodule of the container), for viewers that draw the computation as wires: "conv" ->
/// "norm_common", with what happens on the way ("+ state, activation"; "" for nothing).
struct FlowStep {
    std::string from;
    std::string to;
    std::string label = {};
};

/// Collects the time series a module records during one evolve() call.
class Recorder {
public:
    Recorder(const RecordSpec& spec, Recording& out, std::string path = {});
    /// Whether this module should record `attr`.
    bool wants(const std::string& attr) const { return m_spec->wants(m_path, attr); }
    /// Whether anything at or below this module is requested.
    bool wantsAnything() const { return m_spec->wantsBelow(m_path) || m_spec->all; }
    /// Recorder for a child module named `name`.
    Recorder child(const std::string& name) const;
    /// Stores a (B, T, ...) series for this module.
    void record(const std::string& attr, Tensor data, const std::string& units, bool spikes) const;

    void setTimeBase(double dt, double tStart)
    {
        m_dt = dt;
        m_tStart = tStart;
    }
    const std::string& path() const { return m_path; }

private:
    const RecordSpec* m_spec;
    Recording* m_out;
    std::string m_path;
    double m_dt = 1.0;
    double m_tStart = 0.0;
};

/// Base class of everything that can sit in a module tree.
class Module {
public:
    virtual ~Module();
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    // ---- identity -------------------------------------------------------------------------
    /// Type name as used in model files and the palette ("LIF", "Sequential").
    virtual std::string className() const = 0;
    /// Constructor arguments for this instance (written to model files as "config").
    virtual nlohmann::json config() const;
    /// Text inside the parentheses of toString() for this module alone, e.g. "shape=(4, 4)".
    virtual std::string extraRepr() const;

    /// Name within the parent ("" for a root).
    const std::string& name() const { return m_name; }
    /// Dotted path from the root ("" for the root itself).
    std::string fullName() const;
    Module* parent() const { return m_parent; }

    // ---- shape ----------------------------------------------------------------------------
    /// (Nin, Nout) for layers; (N,) when Nin == Nout.
    const std::vector<std::int64_t>& shape() const { return m_shape; }
    std::int64_t sizeIn() const { return m_shape.front(); }
    std::int64_t sizeOut() const { return m_shape.back(); }
    bool spikingInput() const { return m_spikingInput; }
    bool spikingOutput() const { return m_spikingOutput; }
    /// Named slices of the flat input, in channel order. Default: one port "in" covering all
    /// sizeIn() channels (none when sizeIn() is 0).
    virtual std::vector<PortSpec> inputPorts() const;
    /// Named slices of the flat output. Default: one port "out" covering all sizeOut() channels.
    virtual std::vector<PortSpec> outputPorts() const;

    // ---- tree -----------------------------------------------------------------------------
    /// Adds a child under `name` (non-empty, no '.', unique); returns it. Throws Error.
    Module& addModule(const std::string& name, std::unique_ptr<Module> child);
    /// Like addModule, but places the child at position `index` of the children (index <=
    /// childCount(); childCount() appends), so an editor can put a removed child back where it
    /// was. Throws Error for a bad or taken name or an index past the end.
    Module& insertModule(std::size_t index, const std::string& name, std::unique_ptr<Module> child);
    /// Removes and returns the child named `name`; throws Error when absent.
    std::unique_ptr<Module> removeModule(const std::string& name);
    /// Position of the child named `name` among the children; throws Error when absent.
    std::size_t childIndex(const std::string& name) const;
    /// The direct child named `name`, or nullptr.
    Module* findChild(const std::string& name) const;
    std::vector<std::pair<std::string, Module*>> namedChildren() const;
    std::size_t childCount() const { return m_children.size(); }
    /// The child at position `index` (its name is childAt(index).name()), without copying the
    /// list as namedChildren() does; throws Error past the end.
    Module& childAt(std::size_t index) const;
    /// This module ("") and all descendants with dotted paths, depth-first in insertion order.
    std::vector<std::pair<std::string, Module*>> namedModules() const;
    /// Descendant at a dotted path ("" is this module). Throws Error naming the missing step.
    Module& getSubmodule(const std::string& path) const;
    /// Calls fn on every descendant, then on this module (PyTorch order).
    void apply(const std::function<void(Module&)>& fn);
    /// PyTorch-style printed tree, as print(model) shows.
    std::string toString() const;

    // ---- attribute registry ---------------------------------------------------------------
    /// Every registered attribute of this module alone, in registration order.
    std::vector<AttributeView> attributes() const;
    bool hasAttribute(const std::string& name) const;
    /// Current value; throws Error naming the module when there is no such attribute.
    const AttributeValue& attribute(const std::string& name) const;
    /// Current value of a numeric attribute; throws Error otherwise.
    const Tensor& tensor(const std::string& name) const;
    const AttributeSpec& spec(const std::string& name) const;
    /// Whether `name` is currently derived (read-only) rather than settable.
    bool isDerived(const std::string& name) const;
    /// The first attribute declared with `role` (attribute.hpp's Role), if any.
    std::optional<AttributeView> attributeWithRole(Role role) const;
    /// The name of the recordable State declared Role::Membrane ("vmem" for LIF, "v" for
    /// LIFRefrac and CUBALIF): the trace viewers show by default. "" when there is none.
    std::string membraneSignal() const;

    /// Parameters of this tree (optionally of one family), keyed by module path.
    NestedAttributes parameters(const std::string& family = {}) const;
    NestedAttributes state(const std::string& family = {}) const;
    NestedAttributes simulationParameters(const std::string& family = {}) const;
    /// Every attribute called `name` anywhere in the tree (derived ones included).
    NestedAttributes attributesNamed(const std::string& name) const;
    /// Validates every change in the whole tree, then commits all of them, or none.
    Status setAttributes(const NestedAttributes& changes);
    /// setAttributes on this module alone.
    Status setAttribute(const std::string& name, const AttributeValue& value);
    /// States of the whole tree back to their initial values; elapsed time back to zero.
    void resetState();
    /// Parameters and simulation parameters of the whole tree back to their initial values.
    void resetParameters();

    // ---- torch-style views ----------------------------------------------------------------
    /// ("path.name", value) of every settable Parameter in the tree.
    std::vector<std::pair<std::string, Tensor>> namedParameters() const;
    /// Parameters and States (buffers) with PyTorch key names.
    StateDict stateDict() const;
    /// Loads a state dict. strict: any missing or unexpected key fails the whole load.
    /// Shapes and values are validated for every key before anything is changed.
    LoadStateDictResult loadStateDict(const StateDict& dict, bool strict = true);

    // ---- hooks and mode -------------------------------------------------------------------
    HookHandle registerForwardPreHook(ForwardPreHook hook);
    HookHandle registerForwardHook(ForwardHook hook);
    /// Sets training mode on this module and every descendant.
    void train(bool mode = true);
    void eval() { train(false); }
    bool training() const { return m_training; }

    // ---- evolution ------------------------------------------------------------------------
    /// Evolves the tree over an input (T, Nin) or (B, T, Nin). States carry over between calls.
    /// With a batch, each batch element starts from the stored state and the stored state
    /// afterwards is batch element 0's (Rockpool semantics). Throws Error for a wrong shape,
    /// zero-size or non-finite input.
    EvolveResult evolve(const Tensor& input, const RecordSpec& record = {});
    /// Named summary statistics of this module's current attributes (and its descendants'), in
    /// display order. Default: none.
    virtual std::vector<ModuleStatistic> statistics() const;
    /// How data flows between this container's children in its forward computation, in the
    /// order it runs (a Sequential: each child into the next; a ResBlock: conv1 -> conv2 -> act
    /// "+ x (residual)"). Default: none (a Network's connections are its own wires; a leaf has no
    /// children).
    virtual std::vector<FlowStep> dataFlow() const;
    /// Each child into the next, in order (what a Sequential or an MLP computes).
    std::vector<FlowStep> chainFlow() const;
    /// Signals this module can record during evolve() (e.g. "vmem", "spikes").
    virtual std::vector<std::string> recordableSignals() const;
    /// What sets State `state`, for a message about it (a NaN found there): an equation-defined
    /// population names the equation and where it is written ("dv/dt = ... (line 2, column 1)").
    /// Default: "" (the module's header comment states its update).
    virtual std::string stateOrigin(const std::string& state) const;
    /// Time step [s] (the "dt" attribute, else the first descendant's, else 1), as the decimal
    /// it was set to (engine/tensor/decimal.hpp: 0.001, not float32's 0.0010000000474974513), so
    /// that times derived from the step count (steps x dt) do not drift.
    double timeStep() const;
    /// "" when every module of this tree that has its own "dt" runs at the same time step;
    /// otherwise each time step and its modules (at most three named per step): "the model
    /// mixes time steps: 0.01 ms (hh), 1 ms (current)". Every module advances by its own dt per
    /// step, so in one run their clocks drift apart (a source's rates and times, the plots' time
    /// axis, which follows timeStep(), disagree with the neurons'): kTimeStepAdvice says so.
    std::string timeStepConflict() const;
    /// What a command-line warning about a timeStepConflict() adds.
    static constexpr const char* kTimeStepAdvice =
        "every node advances by its own dt each step, so their times drift apart: give every node the same dt";
    /// Steps evolved since construction or the last resetState().
    std::int64_t stepsElapsed() const { return m_steps; }
    /// Sets the elapsed-step counter of this module and every descendant (used to replay a
    /// span from a saved state, e.g. one batch element after another). States are not touched.
    void setStepsElapsed(std::int64_t steps);

    /// Forward over a (B, T, Nin) input with hooks; used by containers on their children.
    Tensor forwardBatched(const TensorView& input, const Recorder& recorder);

    /// A runner that advances this module for the runtime (execution plans, the controller).
    /// Default: a generic runner that calls forwardBatched() once per run() (allocating per
    /// call); neuron populations return allocation-free runners over their own working arrays.
    virtual std::unique_ptr<NodeRunner> makeRunner();
    /// The GPU face: a twin that advances this module with device kernels for the CUDA executor
    /// (engine/core/device_runner.hpp). Default: none (nullptr), and the module runs on the host
    /// through makeRunner(); neuron models with kernels return their twin.
    virtual std::unique_ptr<DeviceNeuron> makeDeviceNeuron();

    /// torch-style call: the module applied to one tensor, with hooks. Layers accept their own
    /// layouts (Linear (..., in), Conv2d (N, C, H, W), activations any shape); time-series
    /// modules (neurons, sources, Sequential of them) take (T, Nin) or (B, T, Nin) and evolve.
    virtual Tensor forward(const Tensor& input);

protected:
    Module(std::vector<std::int64_t> shape, bool spikingInput, bool spikingOutput);

    /// Registers an attribute; call in the constructor, then finishRegistration().
    AttributeId addAttribute(AttributeSpec spec);
    AttributeId addAttribute(AttributeBuilder builder) { return addAttribute(builder.take()); }
    /// Assigns every attribute its initial value (or `initial` when given) and validates it.
    /// Throws Error naming the attribute when an initial value is invalid.
    void finishRegistration(const AttributeMap& initial = {});

    const Tensor& value(AttributeId id) const;
    /// Mutable access for state updates during evolution (no validation).
    Tensor& stateRef(AttributeId id);
    const std::string& enumValue(AttributeId id) const;
    /// Stores a derived value (only for attributes isDerived() reports as derived).
    void setDerived(AttributeId id, Tensor value);

    /// Lookup of an attribute value under a proposed change.
    using Lookup = std::function<const AttributeValue&(const std::string&)>;
    /// Whether `spec` is derived (read-only) given the proposed values. Default: never.
    virtual bool derivedUnder(const AttributeSpec& spec, const Lookup& proposed) const;
    /// Cross-attribute validation of a proposed change. Default: accepts.
    virtual Status validateChange(const Lookup& proposed) const;
    /// Called after every commit or reset: recompute derived values and caches.
    virtual void attributesChanged();
    /// The dynamics: input (B, T, Nin) → output (B, T, Nout). Records into `recorder`.
    virtual Tensor evolveImpl(const TensorView& input, const Recorder& recorder) = 0;
    /// Called first by evolve(), before the input is checked: a module that cannot be evolved
    /// at all (a ModuleList) throws its own reason here. Default: nothing.
    virtual void checkEvolvable() const;
    /// Called by resetState() after states are re-initialised (e.g. to reseed generators).
    virtual void onResetState();

    /// Runs pre-hooks on `input`, then `body`, then post-hooks; without hooks the input is
    /// passed through as a view, never copied.
    Tensor runWithHooks(const TensorView& input,
                        const std::function<Tensor(const TensorView&)>& body);

    /// Adds `steps` to the elapsed-step counter of this module and every descendant (runners
    /// that advance a module without forwardBatched() call this after each run).
    void advanceSteps(std::int64_t steps);

    /// "Class 'path'" prefix for messages.
    std::string where() const;
    /// Renames the child `from` to `to` (non-empty, no '.', not taken), keeping its position.
    /// Containers that refer to children by name (Network's connections) update themselves
    /// before calling this. Throws Error when `from` is absent or `to` is invalid.
    void renameChild(const std::string& from, const std::string& to);
    /// Containers change their shape and spiking flags as children are added.
    void setShape(std::vector<std::int64_t> shape, bool spikingInput, bool spikingOutput);

private:
    struct Slot {
        AttributeSpec spec;
        AttributeValue value;
        bool derived = false;
    };
    using Staged = std::vector<std::pair<int, AttributeValue>>;

    int findSlot(const std::string& name) const;
    Status stage(const AttributeMap& changes, Staged& out) const;
    void commit(Staged& staged);
    void collect(NestedAttributes& out, const std::string& prefix,
                 const std::function<bool(const Slot&)>& pick) const;
    void refreshDerivedFlags();
    void toStringInto(std::string& out, int indent) const;

    std::string m_name;
    Module* m_parent = nullptr;
    std::vector<std::pair<std::string, std::unique_ptr<Module>>> m_children;
    /// m_children by name, for findChild() and the uniqueness checks (a linear search per added
    /// child made building a module of n children cost n^2 name compares).
    std::unordered_map<std::string, Module*> m_childByName;
    std::vector<std::int64_t> m_shape;
    bool m_spikingInput = false;
    bool m_spikingOutput = false;
    bool m_training = true;
    std::int64_t m_steps = 0;
    std::vector<Slot> m_slots;
    /// m_slots by attribute name (a search through the slots per name made registering and
    /// setting an equation model's 20000 parameters cost 20000^2 name compares).
    std::unordered_map<std::string, int> m_slotByName;
    std::shared_ptr<HookTable> m_hooks;
};

}  // namespace spike::engine
