// RUN: grad-opt --version | filecheck %s --check-prefix=VERSION
// RUN: grad-run --version | filecheck %s --check-prefix=RUN-VERSION
// RUN: grad-opt --help | filecheck %s --check-prefix=HELP

// Both drivers say which gradopt and which xDSL they are (grad-opt keeps
// xdsl-opt's line, for scripts that read it); grad-opt's help
// ends with gradopt's passes, one line each.

// VERSION:     grad-opt: gradopt {{[0-9]+\.[0-9]+[^ ]*}}, xdsl-opt built from xdsl version 0.74.{{[0-9]+}}
// RUN-VERSION: grad-run: gradopt {{[0-9]+\.[0-9]+[^ ]*}} (xdsl 0.74.{{[0-9]+}})

// HELP:      gradopt's passes (with every xDSL pass):
// HELP-NEXT:   expand-gradient {{ +}}Replace every differentiation op by the ops that compute its result
// HELP-NEXT:   expand-jvp {{ +}}Replace every `grad.jvp` by forward mode
// HELP:        convert-grad-to-standard {{ +}}Lower every `grad` op
// HELP:        print-op-graph {{ +}}Write Graphviz DOT of each function
