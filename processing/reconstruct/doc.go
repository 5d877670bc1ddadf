// Package reconstruct turns a tomography scan into reconstructed slices:
// the chain of httomo and tomopy after the detector, each stage as the
// field defines it and citing where it is defined —
//
//   - dark/flat-field correction and −log (FlatField, MinusLog; as
//     httomolibgpu's prep/normalize.py dark_flat_field_correction and
//     minus_log);
//   - stripe (ring) removal by sorting (RemoveStripeSorting; Vo et al.
//     2018, httomolibgpu's prep/stripe.py remove_stripe_based_sorting);
//   - Paganin phase retrieval of a projection (Paganin; httomolibgpu's
//     prep/phase.py paganin_filter);
//   - the centre of rotation by Vo's method (FindCenterVo; Vo et al.
//     2014, httomolibgpu's and tomopy's recon/rotation.py find_center_vo);
//   - filtered back-projection (FBP; scikit-image's iradon and tomopy's
//     fbp: ramp, Shepp-Logan, cosine, Hamming and Hann filters, detector
//     padding, the circular mask recon_mask_radius).
//
// The kernels are plain functions over float32 slices, destination
// first; the ones that need scratch (FBP, FindCenterVo) hold it in a value
// made once per geometry, so the hot loops allocate nothing.
package reconstruct
