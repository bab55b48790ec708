// What the importer does for the peers' own readings of NIR (nir_import_detail.hpp): time counted
// in steps (Sinabs) and Rockpool's CubaLIF as the engine's LIF. docs/nir.md and docs/nir_peers.md
// say why. Stateless; any thread.
#include "engine/io/module_factory.hpp"
#include "engine/nir/nir_import_detail.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace spike::engine::nir::import_detail {

namespace {

std::string text(double v)
{
    std::ostringstream os;
    os << std::setprecision(6) << v;
    return os.str();
}

const Tensor& tensorOf(const AttributeMap& v, const std::string& name)
{
    return std::get<Tensor>(v.at(name));
}

/// Whether every element of `t` equals `value`.
bool allEqual(const Tensor& t, float value)
{
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        if (t[i] != value) {
            return false;
        }
    }
    return true;
}

}  // namespace

void inSeconds(const Context& c, const Item& it, AttributeMap& v)
{
    const bool steps = c.options.timeUnit == "steps";
    const auto dt = static_cast<float>(c.options.dt);
    const std::string& type = it.node->type;
    for (auto& [name, value] : v) {
        Tensor* t = std::get_if<Tensor>(&value);
        if (t == nullptr) {
            continue;
        }
        const bool time = name.rfind("tau", 0) == 0 || name == "delay";
        const bool rate = name == "r" && (type == "IF" || type == "I");
        if (steps && (time || rate)) {
            for (std::int64_t i = 0; i < t->numel(); ++i) {
                (*t)[i] = time ? (*t)[i] * dt : (*t)[i] / dt;
            }
            continue;
        }
        if (!steps && name.rfind("tau", 0) == 0) {
            for (std::int64_t i = 0; i < t->numel(); ++i) {
                if ((*t)[i] >= 1.0F) {
                    c.notes->push_back(
                        "node '" + it.path + "': " + name + " = " + text((*t)[i]) +
                        " s is long for a spiking network; if the file counts time in steps "
                        "(Sinabs writes tau so), import with time unit \"steps\"");
                    break;
                }
            }
        }
    }
}

std::unique_ptr<Module> rockpoolLif(const Context& c, const Item& it, const AttributeMap& v,
                                    std::int64_t n)
{
    const Tensor& tauMem = tensorOf(v, "tau_mem");
    const Tensor& r = tensorOf(v, "r");
    // Rockpool's to_nir writes w_in = 1 and v_reset = 0 and its from_nir reads neither: it
    // resets by subtracting the threshold and adds the input to the current unweighted.
    if (!allEqual(tensorOf(v, "w_in"), 1.0F)) {
        c.notes->push_back("node '" + it.path + "': w_in is not 1; Rockpool's LIF has no input "
                           "weight and ignores it, and so does this import");
    }
    if (!allEqual(tensorOf(v, "v_reset"), 0.0F)) {
        c.notes->push_back("node '" + it.path + "': v_reset is not 0; Rockpool's LIF subtracts "
                           "the threshold instead and ignores it, and so does this import");
    }
    for (std::int64_t i = 0; i < n; ++i) {
        const double written = rockpoolDt(tauMem[i], r[i]);
        if (written > 0.0 && std::abs(written - c.options.dt) > 1e-3 * c.options.dt) {
            c.notes->push_back("node '" + it.path + "': r = " + text(r[i]) + " was written for dt = " +
                               text(written) + " s (Rockpool writes r = tau_mem exp(-dt / tau_mem) "
                               "/ dt); it runs at dt = " + text(c.options.dt) + " s as chosen");
            break;
        }
    }
    AttributeMap lif{{"tau_mem", tauMem},
                     {"tau_syn", tensorOf(v, "tau_syn")},
                     {"threshold", tensorOf(v, "v_threshold")},
                     {"bias", tensorOf(v, "v_leak")},
                     {"dt", Tensor(Shape{}, std::vector<float>{static_cast<float>(c.options.dt)})}};
    std::unique_ptr<Module> m;
    try {
        m = createModule("LIF", {{"shape", {n, n}}, {"has_rec", false}});
    } catch (const Error& e) {
        fail(c, it.path, std::string("cannot build a LIF: ") + e.what());
    }
    if (const Status s = m->setAttributes(NestedAttributes{{"", lif}}); !s.ok) {
        fail(c, it.path, "as Rockpool's LIF: " + s.message);
    }
    return m;
}

}  // namespace spike::engine::nir::import_detail
