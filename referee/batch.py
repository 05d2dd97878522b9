"""PlaySeats batches on the wire, with each slot's message left as bytes.

``BotBatch`` and ``RefereeBatch`` (protos/parlour/v1/referee.proto) are ``{protocol_version = 1;
repeated {slot = 1; message = 2}}``, the message embedded. An embedded message and a ``bytes`` field
are the same on the wire, so the referee reads and writes both through one private mirror whose
``message`` is bytes: a slot whose bytes are no ``BotMessage`` is then that seat's fault, not a
broken batch, and a message the referee sends is serialized once, not copied into a batch first.
"""
from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass


def _mirror() -> tuple[type[Message], type[Message]]:
    file = descriptor_pb2.FileDescriptorProto(name="parlour/internal/raw_batch.proto", package="parlour.internal",
                                              syntax="proto3")
    entry = file.message_type.add(name="RawEntry")
    entry.field.add(name="slot", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    entry.field.add(name="message", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    batch = file.message_type.add(name="RawBatch")
    batch.field.add(name="protocol_version", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    batch.field.add(name="messages", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
                    label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED, type_name=".parlour.internal.RawEntry")
    pool = descriptor_pool.DescriptorPool()  # its own pool: nothing of it is public
    pool.Add(file)
    return (GetMessageClass(pool.FindMessageTypeByName("parlour.internal.RawBatch")),
            GetMessageClass(pool.FindMessageTypeByName("parlour.internal.RawEntry")))


RawBatch, RawEntry = _mirror()
