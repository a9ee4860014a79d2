"""GradBench's `lstm` (ADBench's LSTM, whose weight matrices are diagonal): the
mean log-likelihood loss of predicting each character of a sequence from the
ones before it, and its gradient in the main and extra parameters by
`gradopt.grad`.

The sequence is one `gradopt.lax.scan` over its c - 1 steps, traced once
(the loop runs c - 1 times at run time, whatever c is); the layers, a few,
are a Python loop inside the step. Each step's carry is the layers' hidden
and cell states and the running sum of the log-likelihoods. The gates of a
layer are one multiply-add of a 4xb block ((input, hidden, input, hidden)
times the weights plus the biases, sliced once outside the loop), then one
sigmoid of its first three rows and the tanh of its last: the interpreter
runs each small op of the step c - 1 times, so the step has few. ADBench's
log-sum-exp adds 2 to the sum of the exponentials (a quirk of the reference,
kept).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats, to_json
from gradopt import lax


def sigmoid(x: Any) -> Any:
    return 1.0 / (1.0 + gnp.exp(-x))


def objective(main_params: Any, extra_params: Any, state: Any, sequence: Any) -> Any:
    layers = main_params.shape[0] // 2
    count, bits = sequence.shape
    params = gnp.reshape(main_params, (layers, 2, 4, bits))
    weights = [params[layer, 0] for layer in range(layers)]
    biases = [params[layer, 1] for layer in range(layers)]
    start = gnp.reshape(state, (layers, 2, bits))
    in_weight, out_weight, out_bias = (extra_params[i] for i in range(3))

    def step(carry: Any, pair: Any) -> tuple[Any, None]:
        hidden, cell, total = carry
        current, following = pair
        value = current * in_weight
        hiddens, cells = [], []
        for layer in range(layers):
            previous = hidden[layer]
            inputs = gnp.stack([value, previous, value, previous])
            gates = inputs * weights[layer] + biases[layer]
            forget, ingate, outgate = sigmoid(gates[:3])
            new_cell = cell[layer] * forget + ingate * gnp.tanh(gates[3])
            value = outgate * gnp.tanh(new_cell)
            hiddens.append(value)
            cells.append(new_cell)
        predicted = value * out_weight + out_bias
        normalised = predicted - gnp.log(gnp.sum(gnp.exp(predicted)) + 2.0)
        total = total + gnp.sum(following * normalised)
        return (gnp.stack(hiddens), gnp.stack(cells), total), None

    initial = (start[:, 0], start[:, 1], gnp.zeros(()))
    (_, _, total), _ = lax.scan(step, initial, (sequence[:-1], sequence[1:]))
    return -total / ((count - 1) * bits)


def _arguments(input: Json) -> tuple[Any, ...]:
    return tuple(
        floats(input[name])
        for name in ("main_params", "extra_params", "state", "sequence")
    )


def _flat(result: Any, input: Json) -> Json:
    """The two gradients, each row by row, one after the other."""
    main, extra = result
    return to_json(np.concatenate([np.ravel(main), np.ravel(extra)]))


FUNCTIONS = {
    "objective": Function(objective, _arguments),
    "jacobian": Function(gradopt.grad(objective, argnums=(0, 1)), _arguments, _flat),
}
