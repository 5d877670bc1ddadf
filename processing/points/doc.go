// Package points reads and writes point annotations of a volume — cell
// candidates and curated cells — in the two formats the field uses: CSV
// with columns z, y, x and type, and the ImageJ "Cell Counter" XML that
// cellfinder (brainglobe-utils' get_cells and save_cells) reads and
// writes. Coordinates are voxels (plane, row, column).
//
// A point's type is free text; Class folds it into the three classes of
// curation: cell, non-cell (artifact) and unknown. In cellfinder's XML,
// marker type 2 is a cell and type 1 a non-cell (cellfinder also uses 1
// for an unclassified candidate, so the XML cannot tell unknown from
// non-cell; CSV keeps the type as written).
//
// Readers either return every point of a file or an error naming the
// file and the line: nothing is half-loaded. Save writes under a
// temporary name and renames when complete (processing/outfile).
package points
