// Package train trains cellfinder's classifier: the ResNet of
// processing/classify/resnet in training mode, as Keras 3 trains it when
// cellfinder's train_yaml.py calls model.fit (cellfinder/core/train/
// train_yaml.py, classify/resnet.py).
//
// A Step is one optimisation step on one batch:
//   - the forward pass with every BatchNormalization (axis=3: one
//     statistic per z plane, over the batch, height, width and channels)
//     normalising with the batch's mean and biased variance, and each
//     moving statistic updated as Keras 3's BatchNormalization does:
//     moving = moving·0.99 + batch·(1 − 0.99), the variance the biased
//     one (ops.moments);
//   - softmax, then Keras's categorical_crossentropy of probabilities
//     (renormalised to sum 1, clipped to [1e-7, 1 − 1e-7], −Σ t·log p),
//     averaged over the batch (Keras's sum_over_batch_size) — cellfinder
//     runs Keras 3 on its torch backend (cellfinder/__init__.py sets
//     KERAS_BACKEND), whose categorical_crossentropy takes the
//     probabilities as they are, so a clipped cube gives no gradient;
//   - the backward pass: dense, global average pool, ReLU, the residual
//     adds, batch normalisation with batch statistics, max pool (to the
//     window's first maximum) and each convolution as two products on
//     the inference engine's GEMM (classify.MatMul): the kernel's
//     gradient im2colᵀ·dY and the patches' gradient dY·Wᵀ, scattered
//     back to the input (col2im);
//   - Keras 3's Adam (keras/src/optimizers/adam.py): β₁ 0.9, β₂ 0.999,
//     ε 1e-7, m += (g − m)(1 − β₁), v += (g² − v)(1 − β₂),
//     w −= α·m/(√v + ε) with α = lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ).
//
// Fit runs epochs of steps over cubes read as cellfinder reads its
// training cubes (ReadYAML, ListSamples, LoadCube), with a seeded
// validation split and learning-rate schedule; Init makes a new
// network's weights as Keras initialises resnet.py's layers.
//
// An Augmenter transforms training cubes as cellfinder's augment.py does
// (MONAI's RandAffine, then flips), with Draws from a seeded Augmentation;
// Fit applies it to training batches only when Config.Augment is set.
//
// # Backends
//
// On the CPU backend a step runs on the CPU's cores. On a device backend
// (CUDA, the cuda build) the convolutions' three products per unit —
// forward, kernel gradient, patches' gradient — go through Products
// (products.go; cuda_products.go: cuBLAS's fp32 GEMM, each product's
// operands uploaded and its result downloaded) and the rest of the step
// stays on the CPU; a self-check (selfcheck in products.go) compares one
// product with the CPU engine's before a run trusts the device. The CUDA
// path is compile-checked (make cuda-check), not yet run on a GPU, and
// its copies per product make it a first step, not a fast one: the
// activations, batch normalisation and Adam on the device are to come.
//
// testdata/gen_train_golden.py is the independent reference: the same
// semantics written in torch (float64, autograd), its results committed
// as train_golden.json.
package train
