"""The static query table: a token table fitted at build time that stands in for the
model at query time. `fit` chooses the training texts and caches the result; `ridge`
is the regression; `packed_cholesky` its solver; `fidelity` measures the table against
the model on phrases held out of the fit."""
