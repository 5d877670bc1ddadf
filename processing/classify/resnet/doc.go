// Package resnet describes the 3D ResNet that brainglobe cellfinder
// classifies cell candidates with (cellfinder/core/classify/resnet.py,
// after He et al. 2016, "Deep residual learning for image recognition";
// read at brainglobe/cellfinder commit 07211e97): its layers, their
// names and weight shapes as cellfinder's Keras code builds them, and
// the network ready to run, with each batch normalisation folded into
// the convolution before it.
//
// The network takes channels-last cubes (batch, height = y, width = x,
// depth = z, channels: signal, then background) and, for the default
// 50 x 50 x 20 cube:
//   - conv1: zero padding 3 on every side, a 7x7x3 convolution of stride
//     2 (64 features, no bias), batch normalisation, ReLU, and a 3x3x2
//     max pool of stride 2 without padding;
//   - four units of residual blocks ([2,2,2,2] for 18 layers, [3,4,6,3]
//     for 34 and 50, [3,4,23,3] for 101, [3,6,36,3] for 152) of 64, 128,
//     256 and 512 features, the first block of units 3-5 of stride 2.
//     Basic blocks (18, 34): padding 1 and a 3x3x3 convolution, twice;
//     bottleneck blocks (50 and more): 1x1x1 (carrying the stride),
//     padded 3x3x3, and 1x1x1 to four times the features. The first block
//     of every unit adds a 1x1x1 convolution of the block's stride and a
//     batch normalisation as its shortcut; the others add their input.
//   - a global average pool and a dense layer of 2 classes with softmax
//     (column 1 is the cell class, cellfinder's type 2).
//
// Every batch normalisation gets axis = 3 and epsilon 1e-5 from
// resnet.py. On a 5-D channels-last tensor axis 3 is the depth (z), not
// the channels: each batch normalisation holds one gamma, beta, mean and
// variance per z index of its input, so a weight file fixes the cube
// depth it was trained for and its parameters scale and shift whole
// planes of features. Folding one into its convolution is therefore a
// per-output-plane scale and shift applied as the convolution's output
// is written (Conv.Scale, Conv.Shift), not a change of the kernel.
package resnet
