// ConnectionIndex: what Network asks of its connections by name, kept beside its list so that
// each question costs by what it touches, not by the size of the network: whether a name is a
// connection's, and whether one node reaches another through undelayed connections (the cycle
// test each new connection makes). Before it, both walked every connection, so loading a network
// file of n connections cost n^2 (10000 LIF nodes in a chain: 4.5 s to load and 13 s to run 100
// steps before; 1.2 s and 1.6 s with this index and the plan's successor lists).
// Thread: owned by its Network's owner, like the Network.
#pragma once

#include "engine/core/graph.hpp"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace spike::engine {

class ConnectionIndex {
public:
    /// Connection list[at] was just inserted (`list` as it is now): its name and position, and
    /// its edge when undelayed between two nodes. The positions after it move up.
    void inserted(const std::vector<Connection>& list, std::size_t at);
    /// Connection `c` was just erased from position `at` (`list` as it is now).
    void erased(const std::vector<Connection>& list, std::size_t at, const Connection& c);
    /// Connection `from` is now called `to`.
    void renameConnection(const std::string& from, const std::string& to);
    /// Node `from` is now called `to` (its edges follow).
    void renameNode(const std::string& from, const std::string& to);
    /// Position of the connection called `name` in the list, or -1.
    std::ptrdiff_t find(const std::string& name) const;
    /// Whether `toNode` can be reached from `fromNode` through undelayed connections
    /// (true when they are the same node).
    bool reaches(const std::string& fromNode, const std::string& toNode) const;

private:
    /// Renumbers the positions of list[from ..].
    void renumber(const std::vector<Connection>& list, std::size_t from);

    std::unordered_map<std::string, std::size_t> m_position;
    /// Per node: the nodes its undelayed connections reach, once per connection.
    std::unordered_map<std::string, std::vector<std::string>> m_next;
};

}  // namespace spike::engine
