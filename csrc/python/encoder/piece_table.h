/* csrc/python/encoder/piece_table.h: PieceTable of kvec._encoder (csrc/python/encoder/piece_table.c): token ids back to text. */
#ifndef KVEC_PIECE_TABLE_H
#define KVEC_PIECE_TABLE_H

#include <Python.h>

extern PyTypeObject PieceTableType;

#endif
