// The constructor settings of every module type (ModuleTypeInfo::settings, module_factory.hpp):
// which config entry each one reads and writes, its kind, bounds and a line for users, plus the
// two functions that apply them (configWithSetting, configWithSize), which run the type's config
// reader without building large modules (io_detail::CheckingOnly). The bounds are the config
// readers' own (module_factory.cpp, layer_types.cpp, the composites' fromConfig), so a value
// accepted here is refused by a reader only for a reason that involves several settings (a
// product over the tensor limit, groups not dividing the channels). Stateless; any thread.
#include "engine/io/factory_detail.hpp"

#include "engine/composites/composite.hpp"
#include "engine/composites/dynamics_network.hpp"
#include "engine/composites/mlp.hpp"
#include "engine/composites/resblock.hpp"
#include "engine/tensor/tensor.hpp"

#include <map>

namespace spike::engine::io_detail {

namespace {

using json = nlohmann::json;

constexpr std::int64_t kMax = kMaxNeurons;

/// An entry of `config` or `fallback` when absent.
json entryOr(const json& config, const std::string& key, const json& fallback)
{
    return config.is_object() && config.contains(key) ? config.at(key) : fallback;
}

/// `config` as an object to write into (null, as createModule accepts it, becomes {}).
json objectOf(json config)
{
    return config.is_object() ? std::move(config) : json::object();
}

/// `s` reading and writing config[key], `fallback` when the entry is absent.
ConfigSetting storedAt(ConfigSetting s, const std::string& key, const json& fallback)
{
    s.get = [key, fallback](const json& c) { return entryOr(c, key, fallback); };
    s.set = [key](json c, const json& v) {
        c = objectOf(std::move(c));
        c[key] = v;
        return c;
    };
    return s;
}

/// An Integer setting stored as config[key].
ConfigSetting integerKey(std::string name, std::string key, std::int64_t lo, std::int64_t hi,
                         std::int64_t fallback, std::string doc, bool size = false)
{
    return storedAt({std::move(name), SettingKind::Integer, lo, hi, {}, std::move(doc), size}, key, fallback);
}

/// A Boolean setting stored as config[key].
ConfigSetting booleanKey(std::string name, bool fallback, std::string doc)
{
    return storedAt({name, SettingKind::Boolean, 0, 1, {}, std::move(doc)}, name, fallback);
}

/// A Choice setting stored as config[key].
ConfigSetting choiceKey(std::string name, std::vector<std::string> choices, std::string fallback,
                        std::string doc)
{
    return storedAt({name, SettingKind::Choice, 0, 0, std::move(choices), std::move(doc)}, name, fallback);
}

/// The list config[key] (a lone number n read as [n], absent as `fallback`).
json listOf(const json& config, const std::string& key, const json& fallback)
{
    json list = entryOr(config, key, fallback);
    return list.is_array() ? list : json::array({list});
}

/// An Integer setting stored as entry `index` of the list config[key] (a negative index counts
/// from the end: -1 is the last entry). `fallback` is the list when absent.
ConfigSetting listEntry(std::string name, std::string key, int index, std::int64_t lo,
                        std::int64_t hi, json fallback, std::string doc, bool size = false)
{
    ConfigSetting s{std::move(name), SettingKind::Integer, lo, hi, {}, std::move(doc), size};
    const auto at = [index](const json& list) {
        const auto n = static_cast<int>(list.size());
        return static_cast<std::size_t>(std::clamp(index < 0 ? n + index : index, 0, n - 1));
    };
    s.get = [key, fallback, at](const json& c) {
        const json list = listOf(c, key, fallback);
        return list.empty() ? json(0) : list.at(at(list));
    };
    s.set = [key, fallback, at](json c, const json& v) {
        c = objectOf(std::move(c));
        json list = listOf(c, key, fallback);
        if (list.empty()) {
            list.push_back(v);
        } else {
            list.at(at(list)) = v;
        }
        c[key] = list;
        return c;
    };
    return s;
}

/// The (height, width) pair config[key] (a number for both, or [h, w]) as two Integer settings
/// "<prefix>_height" and "<prefix>_width", so a non-square value reads back as it is.
std::vector<ConfigSetting> pairSettings(const std::string& prefix, const std::string& key,
                                        std::int64_t lo, std::int64_t hi, std::int64_t fallback,
                                        const std::string& what)
{
    const json both = json::array({fallback, fallback});
    std::vector<ConfigSetting> out;
    for (const auto& sideIndex : {std::pair{"height", 0}, std::pair{"width", 1}}) {
        // Named copies, not a structured binding: clang 14 cannot capture one in the lambdas.
        const std::string side = sideIndex.first;
        const int index = sideIndex.second;
        out.push_back(listEntry(prefix + "_" + side, key, index, lo, hi, both,
                                what + " " + side + " ('" + key + "'[" + std::to_string(index) + "])"));
        // A lone number means both sides: widen it before writing one side.
        out.back().get = [key, both, index](const json& c) {
            const json v = entryOr(c, key, both);
            return v.is_array() ? v.at(static_cast<std::size_t>(std::min<std::size_t>(index, v.size() - 1)))
                                : v;
        };
        out.back().set = [key, both, index](json c, const json& v) {
            c = objectOf(std::move(c));
            json pair = entryOr(c, key, both);
            if (!pair.is_array()) {
                pair = json::array({pair, pair});
            }
            if (pair.size() == 2) {
                pair.at(static_cast<std::size_t>(index)) = v;
            }
            c[key] = pair;
            return c;
        };
    }
    return out;
}

/// The population size of a type whose config is "shape": [N] (sources, LIFRefrac, CUBALIF,
/// activations). `noun`: "neurons", "channels", "features".
ConfigSetting shapeSize(const std::string& noun, const std::string& doc)
{
    ConfigSetting s = listEntry(noun, "shape", -1, 1, kMax, json::array({1}), doc, true);
    s.set = [](json c, const json& v) {
        c = objectOf(std::move(c));
        c["shape"] = json::array({v});
        return c;
    };
    return s;
}

/// LIF's input channels Nin = neurons x synapses, refused past the config reader's bound.
std::int64_t lifInputs(std::int64_t neurons, std::int64_t synapses)
{
    if (neurons < 1 || synapses < 1) {
        throw Error("a LIF needs at least 1 neuron and 1 synapse per neuron");
    }
    if (synapses > kMax / neurons) {
        throw Error(std::to_string(neurons) + " neurons x " + std::to_string(synapses) +
                    " synapses exceeds the 100000000 input channels a LIF may have");
    }
    return neurons * synapses;
}

/// LIF: "shape" [Nin, Nout] with Nin = Nout * synapses per neuron.
std::vector<ConfigSetting> lifSettings()
{
    const auto dims = [](const json& c) {
        const json shape = listOf(c, "shape", json::array({1, 1}));
        const std::int64_t nOut = shape.empty() ? 1 : shape.back().get<std::int64_t>();
        const std::int64_t nIn = shape.empty() ? 1 : shape.front().get<std::int64_t>();
        return std::pair{nIn, nOut};
    };
    ConfigSetting neurons{"neurons", SettingKind::Integer, 1, kMax, {},
                          "Neurons in the layer (shape[1]); the synapses per neuron stay as they are",
                          true};
    neurons.get = [dims](const json& c) { return json(dims(c).second); };
    neurons.set = [dims](json c, const json& v) {
        const auto [nIn, nOut] = dims(c);
        const std::int64_t k = nOut > 0 && nIn % nOut == 0 ? nIn / nOut : 1;
        const std::int64_t n = v.get<std::int64_t>();
        c = objectOf(std::move(c));
        c["shape"] = json::array({lifInputs(n, k), n});
        return c;
    };
    ConfigSetting synapses{"synapses", SettingKind::Integer, 1, kMax, {},
                           "Input channels (synapses) per neuron: Nin = neurons x synapses"};
    synapses.get = [dims](const json& c) {
        const auto [nIn, nOut] = dims(c);
        return json(nOut > 0 && nIn % nOut == 0 ? nIn / nOut : 1);
    };
    synapses.set = [dims](json c, const json& v) {
        const std::int64_t nOut = dims(c).second;
        const std::int64_t k = v.get<std::int64_t>();
        c = objectOf(std::move(c));
        c["shape"] = json::array({lifInputs(nOut, k), nOut});
        return c;
    };
    return {neurons, synapses,
            booleanKey("has_rec", false, "Recurrent weights w_rec (neurons x Nin) from the previous step's spikes")};
}

/// Network: "input_size" / "output_size", or a list of named ports on that side, whose sizes
/// the setting reads as their sum and sets only when there is a single port.
ConfigSetting networkSide(const std::string& sizeKey, const std::string& portsKey,
                          const std::string& doc)
{
    ConfigSetting s{sizeKey, SettingKind::Integer, 0, kMax, {}, doc};
    s.get = [sizeKey, portsKey](const json& c) {
        if (c.is_object() && c.contains(portsKey) && c.at(portsKey).is_array()) {
            std::int64_t sum = 0;
            for (const json& p : c.at(portsKey)) {
                sum += p.is_object() && p.contains("size") && p.at("size").is_number_integer()
                           ? p.at("size").get<std::int64_t>() : 0;
            }
            return json(sum);
        }
        return entryOr(c, sizeKey, 0);
    };
    s.set = [sizeKey, portsKey, get = s.get](json c, const json& v) {
        c = objectOf(std::move(c));
        if (!c.contains(portsKey)) {
            c[sizeKey] = v;
            return c;
        }
        if (get(c) == v) {
            return c;
        }
        json& ports = c[portsKey];
        if (!ports.is_array() || ports.size() != 1 || !ports[0].is_object()) {
            throw Error("this side has " + std::to_string(ports.size()) +
                        " named ports; set their sizes in the model file ('" + portsKey + "')");
        }
        ports[0]["size"] = v;
        return c;
    };
    return s;
}

std::vector<std::string> withNone(std::vector<std::string> names)
{
    names.push_back("none");
    return names;
}

/// Every type's settings, by type name; types not listed have none.
std::map<std::string, std::vector<ConfigSetting>> settingsTable()
{
    std::map<std::string, std::vector<ConfigSetting>> t;
    t["LIF"] = lifSettings();
    t["LIFRefrac"] = {shapeSize("neurons", "Neurons in the layer (one input channel each)")};
    t["CUBALIF"] = {shapeSize("neurons", "Neurons in the layer (2 x neurons input channels: exc, then inh)")};
    for (const auto& type : io_detail::nirNeuronTypes()) {
        t[type.type] = {shapeSize("neurons", "Neurons in the layer (one input channel each)")};
    }
    for (const auto& type : io_detail::equationTypes()) {
        t[type.type] = {shapeSize("neurons", "Neurons in the population (N input channels per input port)")};
    }
    for (const char* source : {"ConstantCurrent", "PulseTrain", "SineCurrent", "PoissonSource",
                               "RegularSpikeTrain"}) {
        t[source] = {shapeSize("channels", "Output channels")};
    }
    t["FileSource"] = {
        listEntry("rows", "shape", 0, 1, Tensor::kMaxElements, json::array({1, 1}),
                  "Rows of data, one per step (shape[0])"),
        listEntry("channels", "shape", 1, 1, kMax, json::array({1, 1}),
                  "Output channels, the columns of data (shape[1])", true)};

    t["Linear"] = {integerKey("in_features", "in_features", 1, kMax, 1, "Input features"),
                   integerKey("out_features", "out_features", 1, kMax, 1, "Output features", true),
                   booleanKey("bias", true, "Adds a learnable bias b")};
    t["LSTM"] = {integerKey("input_size", "input_size", 1, kMax, 1, "Input features per step"),
                 integerKey("hidden_size", "hidden_size", 1, kMax, 1, "Features of h and c (the output)", true),
                 integerKey("num_layers", "num_layers", 1, 1000, 1, "Stacked LSTM layers"),
                 booleanKey("bias", true, "Adds the biases b_ih and b_hh"),
                 booleanKey("batch_first", false, "Inputs are (batch, sequence, features)")};
    {
        std::vector<ConfigSetting> conv{
            integerKey("in_channels", "in_channels", 1, kMax, 1, "Input channels"),
            integerKey("out_channels", "out_channels", 1, kMax, 1, "Output channels (filters)", true)};
        for (const auto& [prefix, key, lo, fallback, what] :
             {std::tuple{"kernel", "kernel_size", 1, 1, "Kernel"},
              std::tuple{"stride", "stride", 1, 1, "Stride"},
              std::tuple{"padding", "padding", 0, 0, "Zero padding"},
              std::tuple{"dilation", "dilation", 1, 1, "Dilation"}}) {
            for (ConfigSetting& s : pairSettings(prefix, key, lo, 4096, fallback, what)) {
                conv.push_back(std::move(s));
            }
        }
        conv.push_back(integerKey("groups", "groups", 1, kMax, 1,
                                  "Channel groups; divides in_channels and out_channels"));
        conv.push_back(booleanKey("bias", true, "Adds a learnable bias per output channel"));
        for (ConfigSetting& s : pairSettings("input", "input_size", 0, kMax, 0, "Input")) {
            s.doc += "; 0: not known until an input arrives";
            conv.push_back(std::move(s));
        }
        t["Conv2d"] = std::move(conv);
    }
    t["Conv1d"] = {
        integerKey("in_channels", "in_channels", 1, kMax, 1, "Input channels"),
        integerKey("out_channels", "out_channels", 1, kMax, 1, "Output channels (filters)", true),
        integerKey("kernel_size", "kernel_size", 1, 4096, 1, "Kernel length"),
        integerKey("stride", "stride", 1, 4096, 1, "Stride"),
        integerKey("padding", "padding", 0, 4096, 0, "Zero padding at each end"),
        integerKey("dilation", "dilation", 1, 4096, 1, "Dilation"),
        integerKey("groups", "groups", 1, kMax, 1, "Channel groups; divides in_channels and out_channels"),
        booleanKey("bias", true, "Adds a learnable bias per output channel"),
        integerKey("input_size", "input_size", 0, kMax, 0,
                   "Input length L; 0: not known until an input arrives")};
    for (const char* pool : {"AvgPool2d", "SumPool2d"}) {
        std::vector<ConfigSetting> settings{
            integerKey("channels", "channels", 1, kMax, 1, "Channels C, each pooled on its own", true)};
        for (const auto& [prefix, key, lo, what] :
             {std::tuple{"kernel", "kernel_size", 1, "Window"}, std::tuple{"stride", "stride", 1, "Stride"},
              std::tuple{"padding", "padding", 0, "Zero padding"}}) {
            for (ConfigSetting& s : pairSettings(prefix, key, lo, 4096, lo, what)) {
                if (std::string(key) == "stride") {
                    // An absent stride is the kernel size, as the reader takes it.
                    const auto withStride = [](json c) {
                        if (c.is_object() && !c.contains("stride") && c.contains("kernel_size")) {
                            c["stride"] = c.at("kernel_size");
                        }
                        return c;
                    };
                    s.doc += "; the kernel size when absent";
                    s.get = [inner = s.get, withStride](const json& c) { return inner(withStride(c)); };
                    s.set = [inner = s.set, withStride](json c, const json& v) {
                        return inner(withStride(std::move(c)), v);
                    };
                }
                settings.push_back(std::move(s));
            }
        }
        for (ConfigSetting& s : pairSettings("input", "input_size", 0, kMax, 0, "Input")) {
            s.doc += "; 0: not known until an input arrives";
            settings.push_back(std::move(s));
        }
        t[pool] = std::move(settings);
    }
    const auto batchNormFlags = [](std::vector<ConfigSetting> s) {
        s.push_back(booleanKey("affine", true, "Learnable weight and bias per feature"));
        s.push_back(booleanKey("track_running_stats", true, "Keeps running mean and variance for eval"));
        return s;
    };
    t["BatchNorm1d"] = batchNormFlags(
        {integerKey("num_features", "num_features", 1, kMax, 1, "Features C", true),
         integerKey("length", "length", 0, kMax, 0, "Length L of (N, C, L) inputs; 0: (N, C)")});
    {
        std::vector<ConfigSetting> bn2 = batchNormFlags(
            {integerKey("num_features", "num_features", 1, kMax, 1, "Channels C", true)});
        for (ConfigSetting& s : pairSettings("input", "input_size", 1, kMax, 1, "Input")) {
            bn2.push_back(std::move(s));
        }
        t["BatchNorm2d"] = std::move(bn2);
    }
    t["LayerNorm"] = {
        listEntry("features", "normalized_shape", -1, 1, kMax, json::array({1}),
                  "Last extent of normalized_shape (leading extents, if any, stay)", true),
        booleanKey("elementwise_affine", true, "Learnable weight (and bias) per element"),
        booleanKey("bias", true, "Learnable bias (with elementwise_affine)")};
    t["Flatten"] = {shapeSize("features", "Input features per step"),
                    integerKey("start_dim", "start_dim", -4, 3, 1, "First axis merged"),
                    integerKey("end_dim", "end_dim", -4, 3, -1, "Last axis merged")};
    for (const char* sized : {"Identity", "ReLU", "Sigmoid", "Tanh", "GELU", "Threshold"}) {
        t[sized] = {shapeSize("features", "Features per step")};
    }
    t["Scale"] = {shapeSize("channels", "Channels, each with its own scale")};
    t["Heaviside"] = {shapeSize("channels", "Channels, each with its own threshold")};
    t["Delay"] = {shapeSize("channels", "Channels, each with its own delay")};
    t["PReLU"] = {shapeSize("features", "Features per step"),
                  integerKey("num_parameters", "num_parameters", 1, kMax, 1,
                             "Learnable slopes: 1, or one per channel")};

    t["Network"] = {networkSide("input_size", "input_ports", "Channels of the boundary input (0: none)"),
                    networkSide("output_size", "output_ports", "Channels of the boundary output (0: none)")};
    {
        const ResBlockOptions o;
        std::vector<ConfigSetting> rb{
            integerKey("in_channels", "in_channels", 1, kMax, 1, "Input channels"),
            [] {
                // 0 means "as in_channels", which the built module's config writes out.
                ConfigSetting out = integerKey("out_channels", "out_channels", 0, kMax, 0,
                                               "Output channels (0: as in_channels)");
                out.get = [](const json& c) {
                    const json v = entryOr(c, "out_channels", 0);
                    return v == json(0) ? entryOr(c, "in_channels", 1) : v;
                };
                return out;
            }(),
            choiceKey("activation", compositeActivations(), o.activation, "Activation after each block"),
            choiceKey("norm_type", {"BN", "none"}, o.normType, "Normalisation after each convolution"),
            choiceKey("res_type", {"basic", "bottleneck", "downsample"}, o.resType, "Residual block kind"),
            booleanKey("bias", o.bias, "Biases on the convolutions")};
        for (ConfigSetting& s : pairSettings("input", "input_size", 1, kMax, 1, "Input")) {
            rb.push_back(std::move(s));
        }
        t["ResBlock"] = std::move(rb);
    }
    {
        const MlpOptions o;
        t["MLP"] = {
            integerKey("in_channels", "in_channels", 1, kMax, 1, "Input features"),
            integerKey("hidden_channels", "hidden_channels", 1, kMax, 1, "Features of each hidden layer"),
            integerKey("out_channels", "out_channels", 1, kMax, 1, "Output features", true),
            integerKey("layer_num", "layer_num", 0, 1000, 1, "Linear layers"),
            choiceKey("activation", withNone(compositeActivations()), o.activation, "Activation per layer"),
            choiceKey("norm_type", {"BN", "LN", "none"}, o.normType, "Normalisation per layer"),
            booleanKey("output_activation", o.outputActivation, "Activation after the last Linear too"),
            booleanKey("output_norm", o.outputNorm, "Normalisation after the last Linear too"),
            booleanKey("last_linear_layer_init_zero", o.lastLinearLayerInitZero,
                       "The last Linear starts at zero")};
    }
    {
        const DynamicsNetworkConfig c;
        t["DynamicsNetwork"] = {
            listEntry("observation_height", "observation_shape", -2, 1, kMax, json::array({1, 1}),
                      "Height H of the latent state (observation_shape[-2])"),
            listEntry("observation_width", "observation_shape", -1, 1, kMax, json::array({1, 1}),
                      "Width W of the latent state (observation_shape[-1])"),
            integerKey("action_encoding_dim", "action_encoding_dim", 1, kMax, c.actionEncodingDim,
                       "Channels of the action encoding"),
            integerKey("num_res_blocks", "num_res_blocks", 0, 1000, c.numResBlocks, "Residual blocks"),
            integerKey("num_channels", "num_channels", 2, kMax, c.numChannels,
                       "Channels of the state-action encoding (> action_encoding_dim)"),
            integerKey("reward_head_channels", "reward_head_channels", 1, kMax, c.rewardHeadChannels,
                       "Channels of the reward head's convolution"),
            integerKey("output_support_size", "output_support_size", 1, kMax, c.outputSupportSize,
                       "Value-prefix support size"),
            booleanKey("downsample", c.downsample, "Observations were downsampled by 16"),
            integerKey("lstm_hidden_size", "lstm_hidden_size", 1, kMax, c.lstmHiddenSize,
                       "Hidden features of the value-prefix LSTM"),
            booleanKey("last_linear_layer_init_zero", c.lastLinearLayerInitZero,
                       "The last Linear starts at zero"),
            choiceKey("activation", compositeActivations(), c.activation, "Activation"),
            choiceKey("norm_type", {"BN", "LN"}, c.normType, "Normalisation")};
        // flatten_input_size_for_reward_head must equal reward_head_channels x H x W: the reader
        // derives it when absent, so a changed setting drops the value config() wrote.
        for (ConfigSetting& setting : t["DynamicsNetwork"]) {
            setting.set = [inner = setting.set](json config, const json& v) {
                json out = inner(std::move(config), v);
                out.erase("flatten_input_size_for_reward_head");
                return out;
            };
        }
    }
    return t;
}

}  // namespace

namespace {
thread_local bool t_checkingOnly = false;
}  // namespace

bool checkingOnly()
{
    return t_checkingOnly;
}

CheckingOnly::CheckingOnly() : m_previous(t_checkingOnly)
{
    t_checkingOnly = true;
}

CheckingOnly::~CheckingOnly()
{
    t_checkingOnly = m_previous;
}

std::vector<ConfigSetting> typeSettings(const std::string& type)
{
    static const std::map<std::string, std::vector<ConfigSetting>> table = settingsTable();
    const auto it = table.find(type);
    return it == table.end() ? std::vector<ConfigSetting>{} : it->second;
}

}  // namespace spike::engine::io_detail

namespace spike::engine {

namespace {

/// "whole number in [1, 100000000]", "true or false", "one of 'a', 'b'".
std::string expectation(const ConfigSetting& s)
{
    switch (s.kind) {
    case SettingKind::Integer:
        return "a whole number in [" + std::to_string(s.min) + ", " + std::to_string(s.max) + "]";
    case SettingKind::Boolean:
        return "true or false";
    case SettingKind::Choice: {
        std::string list;
        for (const auto& c : s.choices) {
            list += (list.empty() ? "'" : ", '") + c + "'";
        }
        return "one of " + list;
    }
    }
    return {};
}

bool accepts(const ConfigSetting& s, const nlohmann::json& v)
{
    switch (s.kind) {
    case SettingKind::Integer: {
        if (!v.is_number_integer()) {
            return false;  // 2.5, "7", true and 1e12 as a double are refused alike
        }
        if (v.is_number_unsigned()) {
            const auto u = v.get<std::uint64_t>();
            return u <= static_cast<std::uint64_t>(s.max) && (s.min <= 0 || u >= static_cast<std::uint64_t>(s.min));
        }
        const std::int64_t n = v.get<std::int64_t>();
        return n >= s.min && n <= s.max;
    }
    case SettingKind::Boolean:
        return v.is_boolean();
    case SettingKind::Choice:
        return v.is_string() && std::find(s.choices.begin(), s.choices.end(), v.get<std::string>()) !=
                                    s.choices.end();
    }
    return false;
}

}  // namespace

nlohmann::json configWithSetting(const std::string& type, const nlohmann::json& config,
                                 const std::string& name, const nlohmann::json& value)
{
    const ModuleTypeInfo* info = findModuleType(type);
    if (info == nullptr) {
        createModule(type, config);  // throws the unknown-type message listing the known types
        throw Error("unknown module type '" + type + "'");
    }
    const auto it = std::find_if(info->settings.begin(), info->settings.end(),
                                 [&](const ConfigSetting& s) { return s.name == name; });
    if (it == info->settings.end()) {
        std::string known;
        for (const auto& s : info->settings) {
            known += (known.empty() ? "'" : ", '") + s.name + "'";
        }
        throw Error(type + " has no setting '" + name + "' (" +
                    (known.empty() ? std::string("it has no settings") : "settings: " + known) + ")");
    }
    const std::string prefix = type + " setting '" + name + "': ";
    if (!accepts(*it, value)) {
        throw Error(prefix + "expected " + expectation(*it) + ", got " + value.dump());
    }
    nlohmann::json out;
    try {
        out = it->set(config, value);
        // The type's reader checks it; the large types build nothing while checking.
        const io_detail::CheckingOnly checking;
        (void)createModule(type, out);
    } catch (const Error& e) {
        throw Error(prefix + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw Error(prefix + "the config " + config.dump() + " cannot take it (" + e.what() + ")");
    }
    return out;
}

nlohmann::json configWithSize(const std::string& type, std::int64_t n)
{
    const ModuleTypeInfo* info = findModuleType(type);
    if (info == nullptr) {
        createModule(type, nullptr);  // throws the unknown-type message listing the known types
        throw Error("unknown module type '" + type + "'");
    }
    for (const auto& s : info->settings) {
        if (s.size) {
            return configWithSetting(type, info->exampleConfig, s.name, n);
        }
    }
    throw Error(type + " has no size setting (" +
                (info->container ? "a container's size follows its contents"
                                 : info->category == "projections"
                                       ? "a projection's shape follows its wire"
                                       : "its size follows its other settings") + ")");
}

}  // namespace spike::engine
