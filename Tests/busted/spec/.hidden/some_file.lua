return "hello world"
