import AuthServer
