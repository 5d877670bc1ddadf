// Package keras reads the weight files cellfinder users have for its
// classification network, through voxlab's HDF5 layer (volume.OpenTree,
// which processing/volume/h5 provides: this package does not link
// libhdf5 itself), into resnet.Weights by layer name:
//
//   - the tf.keras 2 HDF5 layout of cellfinder's pretrained
//     resnet50_tv.h5 and resnet50_all.h5 (Keras's save_weights, h5
//     format): root attributes layer_names, backend and keras_version;
//     a group per layer whose attribute weight_names lists its variables
//     ("conv1/kernel:0"), each a dataset at that path inside the group
//     (conv1/conv1/kernel:0). A whole model saved as .h5 keeps the same
//     under /model_weights. Attributes too long for one object header
//     are split into layer_names0, layer_names1, ... as Keras splits them.
//   - Keras 3's layout, written by cellfinder's training: a .keras zip
//     (config.json, metadata.json, model.weights.h5) or a bare
//     .weights.h5. Variables are datasets layers/<class>[_k]/vars/<i>,
//     the layer named by its class in snake case and numbered within its
//     class in the model's layer order (resnet.Keras3Paths). A .keras
//     file's config.json gives that order and the layer names; a bare
//     .weights.h5 has no names, and its layers are taken in the order
//     cellfinder's resnet.py builds them, the depth found from the number
//     of convolutions.
//
// A file that is neither is refused with an error naming it; a file of
// the wrong depth, channel count or cube depth is refused by
// resnet.Weights.Check naming the layer that does not fit.
package keras
