// Test helpers that compare modules attribute by attribute, bit-exactly (model-file and
// state-dict round trips). Header-only; QCOMPARE/QVERIFY failures are reported to the running
// Qt Test function.
#pragma once

#include "engine/core/module.hpp"

#include <QtTest/QtTest>

#include <string>
#include <variant>

namespace spike::tests {

/// Same registry (names, derived flags) and bit-identical values.
inline void compareAttributes(const engine::Module& a, const engine::Module& b)
{
    const auto va = a.attributes();
    const auto vb = b.attributes();
    QCOMPARE(va.size(), vb.size());
    for (std::size_t k = 0; k < va.size(); ++k) {
        QCOMPARE(va[k].spec->name, vb[k].spec->name);
        QCOMPARE(va[k].derived, vb[k].derived);
        if (const auto* t = std::get_if<engine::Tensor>(va[k].value)) {
            QVERIFY2(t->identical(std::get<engine::Tensor>(*vb[k].value)), va[k].spec->name.c_str());
        } else {
            QCOMPARE(std::get<std::string>(*va[k].value), std::get<std::string>(*vb[k].value));
        }
    }
}

/// Same tree (paths, types) and compareAttributes on every module.
inline void compareTrees(const engine::Module& a, const engine::Module& b)
{
    const auto ma = a.namedModules();
    const auto mb = b.namedModules();
    QCOMPARE(ma.size(), mb.size());
    for (std::size_t i = 0; i < ma.size(); ++i) {
        QCOMPARE(ma[i].first, mb[i].first);
        QCOMPARE(ma[i].second->className(), mb[i].second->className());
        compareAttributes(*ma[i].second, *mb[i].second);
        if (QTest::currentTestFailed()) {
            return;
        }
    }
}

}  // namespace spike::tests
