#!/usr/bin/python3
"""Writes two_types.xml the way brainglobe-utils' make_xml does
(ElementTree elements, pretty-printed by minidom with a two-space indent):
cells (type 2) and non-cells (type 1), types in ascending order, each
type's markers in input order. Run: /usr/bin/python3 gen_two_types.py"""
from xml.dom import minidom
from xml.etree import ElementTree
from xml.etree.ElementTree import Element

# (x, y, z, type): a few of each, interleaved, so the writer must group.
cells = [(10, 20, 3, 2), (11, 5, 0, 1), (400, 300, 12, 2), (7, 7, 7, 1),
         (0, 0, 0, 2), (1023, 511, 99, 1), (55, 66, 77, 2)]

root = Element("CellCounter_Marker_File")
props = Element("Image_Properties")
name = Element("Image_Filename")
name.text = "placeholder.tif"
props.append(name)
root.append(props)
data = Element("Marker_Data")
cur = Element("Current_Type")
cur.text = "1"
data.append(cur)
for t in sorted({c[3] for c in cells}):
    mt = Element("Marker_Type")
    te = Element("Type")
    te.text = str(t)
    mt.append(te)
    for x, y, z, ct in cells:
        if ct != t:
            continue
        m = Element("Marker")
        for tag, v in (("MarkerX", x), ("MarkerY", y), ("MarkerZ", z)):
            e = Element(tag)
            e.text = str(int(v))
            m.append(e)
        mt.append(m)
    data.append(mt)
root.append(data)
out = minidom.parseString(ElementTree.tostring(root, "utf-8")).toprettyxml(indent="  ", encoding="UTF-8")
with open("two_types.xml", "w") as f:
    f.write(str(out, "UTF-8"))
