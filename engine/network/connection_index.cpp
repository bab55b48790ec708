// ConnectionIndex. See connection_index.hpp.
#include "engine/network/connection_index.hpp"

#include <algorithm>
#include <deque>
#include <unordered_set>

namespace spike::engine {

namespace {

/// Whether `c` is an edge of the cycle test: undelayed, between two nodes (the boundary's "in"
/// and "out" close no cycle).
bool isEdge(const Connection& c)
{
    return !c.delayed && !c.from.node.empty() && !c.to.node.empty();
}

}  // namespace

void ConnectionIndex::inserted(const std::vector<Connection>& list, std::size_t at)
{
    const Connection& c = list[at];
    renumber(list, at);  // appending (loading a file) renumbers only the new one
    if (isEdge(c)) {
        m_next[c.from.node].push_back(c.to.node);
    }
}

void ConnectionIndex::erased(const std::vector<Connection>& list, std::size_t at, const Connection& c)
{
    m_position.erase(c.name);
    renumber(list, at);
    if (!isEdge(c)) {
        return;
    }
    const auto it = m_next.find(c.from.node);
    if (it == m_next.end()) {
        return;
    }
    std::vector<std::string>& next = it->second;
    if (const auto found = std::find(next.begin(), next.end(), c.to.node); found != next.end()) {
        next.erase(found);
    }
    if (next.empty()) {
        m_next.erase(it);
    }
}

void ConnectionIndex::renumber(const std::vector<Connection>& list, std::size_t from)
{
    for (std::size_t i = from; i < list.size(); ++i) {
        m_position[list[i].name] = i;
    }
}

void ConnectionIndex::renameConnection(const std::string& from, const std::string& to)
{
    if (auto node = m_position.extract(from); !node.empty()) {
        node.key() = to;
        m_position.insert(std::move(node));
    }
}

std::ptrdiff_t ConnectionIndex::find(const std::string& name) const
{
    const auto it = m_position.find(name);
    return it == m_position.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
}

void ConnectionIndex::renameNode(const std::string& from, const std::string& to)
{
    if (from == to) {
        return;
    }
    if (auto node = m_next.extract(from); !node.empty()) {
        node.key() = to;
        m_next.insert(std::move(node));
    }
    for (auto& [source, next] : m_next) {
        std::replace(next.begin(), next.end(), from, to);
    }
}

bool ConnectionIndex::reaches(const std::string& fromNode, const std::string& toNode) const
{
    if (fromNode == toNode) {
        return true;
    }
    std::unordered_set<std::string> seen{fromNode};
    std::deque<const std::string*> queue{&fromNode};
    while (!queue.empty()) {
        const std::string& n = *queue.front();
        queue.pop_front();
        const auto it = m_next.find(n);
        if (it == m_next.end()) {
            continue;
        }
        for (const std::string& next : it->second) {
            if (next == toNode) {
                return true;
            }
            if (seen.insert(next).second) {
                queue.push_back(&next);
            }
        }
    }
    return false;
}

}  // namespace spike::engine
