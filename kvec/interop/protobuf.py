"""Just enough of the protobuf wire format to read a sentencepiece ``.model`` file, without the protobuf
package: messages are read into ``{field number: [values]}``, nested messages on demand. Nothing in a
file is executed; a malformed one raises :class:`kvec.errors.FormatError` naming it.
"""

import struct

from kvec.errors import FormatError

__all__ = ["read_message"]

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


def read_message(data, source):
    """``{field: [raw values]}`` of one message: ints for varints, ``bytes`` for length-delimited
    fields and the 4 or 8 raw bytes of fixed-width ones."""
    fields: dict[int, list[int | bytes]] = {}
    position, end = 0, len(data)
    while position < end:
        key, position = _varint(data, position, source)
        field, wire = key >> 3, key & 7
        if wire == VARINT:
            value, position = _varint(data, position, source)
        elif wire == LENGTH:
            length, position = _varint(data, position, source)
            if position + length > end:
                raise FormatError(source, f"field {field} runs past the end of the data (truncated file?)")
            value, position = bytes(data[position : position + length]), position + length
        elif wire in (FIXED32, FIXED64):
            size = 4 if wire == FIXED32 else 8
            if position + size > end:
                raise FormatError(source, f"field {field} runs past the end of the data (truncated file?)")
            value, position = bytes(data[position : position + size]), position + size
        else:
            raise FormatError(source, f"unsupported protobuf wire type {wire} (field {field})")
        if field == 0:
            raise FormatError(source, "field number 0 is not valid protobuf")
        fields.setdefault(field, []).append(value)
    return fields


def _varint(data, position, source):
    value, shift = 0, 0
    while True:
        if position >= len(data):
            raise FormatError(source, "a number runs past the end of the data (truncated file?)")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
        if shift > 63:
            raise FormatError(source, "a number longer than 10 bytes")


def last(fields, field, default, source):
    """The last value of ``field`` (protobuf's rule for a scalar seen twice), which must have the type
    of ``default`` (int for varints, bytes otherwise); ``FormatError`` naming ``source`` if not."""
    values = fields.get(field)
    if not values:
        return default
    value = values[-1]
    if type(value) is not type(default):
        raise FormatError(source, f"field {field} has the wrong wire type")
    return value


def as_float(raw, source):
    if len(raw) != 4:
        raise FormatError(source, "a float field is not 4 bytes")
    return struct.unpack("<f", raw)[0]


def as_int32(value):
    """A varint read as a signed 32-bit int (negative ids are stored as 64-bit two's complement)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value
