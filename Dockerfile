# One image for every Parlour service (compose.yaml picks the command).
FROM python:3.11-slim
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir 'grpcio-tools>=1.60' \
 && python -m grpc_tools.protoc -Iprotos --python_out=. --grpc_python_out=. protos/parlour/v1/*.proto \
 && touch parlour/__init__.py parlour/v1/__init__.py \
 && pip install --no-cache-dir '.[server]'
EXPOSE 8000 50051
