// NIR files on disk: reading a .nir file (HDF5) into the plain NirFile of nir_graph.hpp and
// writing one back in the layout the NIR library itself writes (neuromorphs/NIR, nir.write):
//
//   /version                 scalar variable-length UTF-8 string ("1.0.7")
//   /node                    the root graph: "type" = "NIRGraph", "nodes", "edges", any params
//   /node/nodes/<name>/      one group per node: a "type" string and one dataset per parameter
//                            (float32, float64 or int64, any rank, a SCALAR dataspace for 0-d;
//                            arrays of rank >= 1 chunked and deflate-4 compressed as h5py does)
//   /node/edges              (E, 2) variable-length UTF-8 strings [source, target]
//
// A node of type "NIRGraph" is a group with its own "nodes" and "edges". The reader also takes
// what older NIR versions (0.2, 1.0) wrote: parameters stored as groups (input_type), the
// version as an attribute of the root, fixed-length strings, no edges (or an empty array of any
// type) for an empty graph, and numbers of any integer or float width (integers and h5py's
// bools become Int64, floats other than float32 become Float64). Nothing else about a file is
// checked here: whether a node type exists or its parameters make sense is the importer's job.
//
// Every failure is one Error line that names the file and, where one applies, the HDF5 path and
// what was expected. HDF5's own error printing is silenced; nothing goes to stderr.
// Thread: any thread. HDF5 (the serial build) is not thread-safe, so every HDF5 call of this
// file runs under one process-wide mutex: two reads or writes at once take turns.
#pragma once

#include "engine/nir/nir_graph.hpp"

#include <string>

namespace spike::engine::nir {

/// The version written when NirFile::version is empty: that of the NIR library the reference
/// files (tests/data/nir) were written with.
inline constexpr const char* kDefaultNirVersion = "1.0.7";

/// Reads the .nir file at `path`. Nodes are listed in name order (as HDF5 lists them), edges in
/// stored order, strings verbatim, float32 values exactly. Throws Error naming the file (and
/// the HDF5 path) when it is missing, not HDF5, damaged, or not laid out as a NIR file; when an
/// array is over Tensor::kMaxElements elements; or when groups nest deeper than 64 levels.
NirFile readNirFile(const std::string& path);

/// Writes `file` to `path` in the NIR library's layout (see the top of this header), with
/// `file.version` as "/version" (kDefaultNirVersion when empty). Atomic: the file is written
/// beside `path` as "<path>.tmp-XXXXXX" and renamed over it; on any failure the temporary is
/// removed, a previous file at `path` stays as it was, and Error names the path and the reason
/// (an unwritable folder, a node name with '/', an Int64 value that is not an integer, an
/// array whose values do not match its shape, ...).
void writeNirFile(const std::string& path, const NirFile& file);

}  // namespace spike::engine::nir
